package gfx

import (
	"fmt"
	"image"
	"image/png"
	"os"
)

// ReadRGBA reads the last frame drawn (by Draw or anything else) from
// the framebuffer into img, row 0 at the top as images have it. img must be
// exactly the frame's size, with its pixels contiguous (Stride 4*width, as
// image.NewRGBA makes it); it is reused, so ReadRGBA does not allocate.
//
// It reads the bound framebuffer's read buffer, the back buffer of a
// window: call it after Frame and before the window's SwapBuffers, after
// which the back buffer's contents are undefined. It waits for the GPU to
// finish the frame. The error reports a size mismatch, or an OpenGL error
// as CheckError does.
func (r *Renderer) ReadRGBA(img *image.RGBA) error {
	r.mustLive("ReadRGBA")
	w, h := r.stats.Width, r.stats.Height
	if img == nil {
		return fmt.Errorf("gfx: ReadRGBA: nil image")
	}
	if iw, ih := img.Rect.Dx(), img.Rect.Dy(); iw != w || ih != h {
		return fmt.Errorf("gfx: ReadRGBA: image is %dx%d, the last frame was %dx%d", iw, ih, w, h)
	}
	if img.Stride != 4*w || len(img.Pix) < 4*w*h {
		return fmt.Errorf("gfx: ReadRGBA: image rows are not contiguous (stride %d, want %d): use image.NewRGBA, not a sub-image", img.Stride, 4*w)
	}
	if err := ReadPixels(0, 0, w, h, img.Pix); err != nil {
		return err
	}
	flipRows(img.Pix[:4*w*h], 4*w)
	return nil
}

// flipRows reverses the order of the rows of pix, each stride bytes, in
// place: OpenGL returns the bottom row first.
func flipRows(pix []byte, stride int) {
	for top, bottom := 0, len(pix)-stride; top < bottom; top, bottom = top+stride, bottom-stride {
		a, b := pix[top:top+stride], pix[bottom:bottom+stride]
		for i := range a {
			a[i], b[i] = b[i], a[i]
		}
	}
}

// SavePNG writes img to path as a PNG file, replacing any file there. On
// failure it removes what it wrote; the error names the path.
func SavePNG(path string, img *image.RGBA) (err error) {
	if img == nil {
		return fmt.Errorf("gfx: save PNG %s: nil image", path)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("gfx: save PNG: %w", err) // *fs.PathError names the path
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("gfx: save PNG: %w", cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if err := png.Encode(f, img); err != nil {
		return fmt.Errorf("gfx: save PNG %s: %w", path, err)
	}
	return nil
}
