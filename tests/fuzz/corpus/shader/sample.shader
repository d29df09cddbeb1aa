// a sample of what the parser reads
textures/base/wall
{
	surfaceparm trans
	cull none
	deformVertexes wave 64 sin 0 2 0 0.5
	{
		map $lightmap
		rgbGen identity
	}
	{
		clampmap textures/base/wall.tga
		blendFunc GL_DST_COLOR GL_ZERO
		alphaFunc GE128
		tcMod scroll 0.1 -0.2
		tcMod turb 0 0.1 0 0.3
		tcMod rotate 30
		tcMod stretch sin 1 0.1 0 1
		tcMod scale 2 2
		rgbGen wave sin 0.5 0.5 0 1
	}
}
/* block
   comment */
textures/skies/box
{
	surfaceparm sky
	surfaceparm nodraw
	skyParms env/box 512 -
	{
		animMap 5 textures/a.jpg textures/b.jpg
		blendfunc add
		rgbGen const ( 0.5 0.25 1 )
	}
}
