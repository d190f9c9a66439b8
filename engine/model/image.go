package model

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"

	// The formats glTF's base colour textures come in.
	_ "image/jpeg"
	_ "image/png"
)

// MaxTextureSide is the most texels along either side of a texture the
// loader decodes; a larger image is refused before it is decoded.
const MaxTextureSide = 8192

// image decodes image i of the document: from a buffer view, a data URI
// or a file beside the model.
func (c *converter) image(i int) (*image.RGBA, error) {
	im := c.doc.Images[i]
	if im == nil {
		return nil, errors.New("null")
	}
	var data []byte
	switch {
	case im.BufferView != nil:
		var err error
		if data, _, err = c.bufferView(*im.BufferView); err != nil {
			return nil, err
		}
	case im.URI != "":
		var err error
		if data, err = readURI(im.URI, c.fsys, c.dir); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("neither a uri nor a buffer view")
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not a PNG or JPEG image (%v)", err)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxTextureSide || cfg.Height > MaxTextureSide {
		return nil, fmt.Errorf("%dx%d texels, at most %d a side", cfg.Width, cfg.Height, MaxTextureSide)
	}
	if err := c.spend(cfg.Width * cfg.Height); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", format, err)
	}
	return straightRGBA(img), nil
}

// straightRGBA copies img into an *image.RGBA at the origin holding the
// file's colours as they are, not premultiplied by alpha (see
// Material.Texture).
func straightRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	switch src := img.(type) {
	case *image.NRGBA:
		for y := 0; y < b.Dy(); y++ {
			copy(dst.Pix[y*dst.Stride:y*dst.Stride+4*b.Dx()], src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):])
		}
		return dst
	case interface{ Opaque() bool }:
		if src.Opaque() {
			// Premultiplied and straight colours are the same when
			// every alpha is 1; draw has fast paths for the common types.
			draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
			return dst
		}
	}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
			o := y*dst.Stride + 4*x
			dst.Pix[o], dst.Pix[o+1], dst.Pix[o+2], dst.Pix[o+3] = c.R, c.G, c.B, c.A
		}
	}
	return dst
}
