package model

import (
	"fmt"
	"image"

	"github.com/qmuntal/gltf"
)

// material reads a primitive's base colour factor and texture.
func (c *converter) material(p *gltf.Primitive, hasUVs bool) (Material, error) {
	mat := Material{BaseColor: [4]float32{1, 1, 1, 1}}
	if p.Material == nil {
		return mat, nil
	}
	mi := *p.Material
	if mi < 0 || mi >= len(c.doc.Materials) {
		return mat, fmt.Errorf("material %d does not exist (the file has %d)", mi, len(c.doc.Materials))
	}
	m := c.doc.Materials[mi]
	if m == nil {
		return mat, fmt.Errorf("material %d is null", mi)
	}
	where := fmt.Sprintf("material %d", mi)
	if m.Name != "" {
		where = fmt.Sprintf("material %d (%s)", mi, m.Name)
	}
	pbr := m.PBRMetallicRoughness
	if pbr == nil {
		return mat, nil
	}
	f := pbr.BaseColorFactorOrDefault()
	for k := range f {
		mat.BaseColor[k] = float32(f[k])
	}
	if !finite(mat.BaseColor[:]...) {
		return mat, fmt.Errorf("%s: base colour factor %v is not finite", where, f)
	}
	tex := pbr.BaseColorTexture
	if tex == nil {
		return mat, nil
	}
	if tex.TexCoord != 0 {
		return mat, fmt.Errorf("%s: the base colour texture uses TEXCOORD_%d, only TEXCOORD_0 is read", where, tex.TexCoord)
	}
	if !hasUVs {
		return mat, fmt.Errorf("%s: a base colour texture, but the primitive has no TEXCOORD_0", where)
	}
	img, err := c.texture(tex.Index)
	if err != nil {
		return mat, fmt.Errorf("%s: base colour texture: %w", where, err)
	}
	mat.Texture = img
	return mat, nil
}

// texture returns the decoded image of texture i.
func (c *converter) texture(i int) (*image.RGBA, error) {
	if i < 0 || i >= len(c.doc.Textures) {
		return nil, fmt.Errorf("texture %d does not exist (the file has %d)", i, len(c.doc.Textures))
	}
	t := c.doc.Textures[i]
	if t == nil {
		return nil, fmt.Errorf("texture %d is null", i)
	}
	if t.Source == nil {
		return nil, fmt.Errorf("texture %d has no source image (images of extensions are not read)", i)
	}
	src := *t.Source
	if src < 0 || src >= len(c.doc.Images) {
		return nil, fmt.Errorf("texture %d: image %d does not exist (the file has %d)", i, src, len(c.doc.Images))
	}
	if img, ok := c.images[src]; ok {
		return img, nil
	}
	if err, ok := c.imageErr[src]; ok {
		return nil, err
	}
	img, err := c.image(src)
	if err != nil {
		err = fmt.Errorf("image %d: %w", src, err)
		c.imageErr[src] = err
		return nil, err
	}
	c.images[src] = img
	return img, nil
}
