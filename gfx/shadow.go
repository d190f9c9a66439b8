package gfx

import (
	"fmt"
	"math"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
)

// shadowTextureUnit is the texture unit of the shadow map (shadow.glsl's
// uShadowMap).
const shadowTextureUnit = 6

// Shadows configures the directional light's shadows (Renderer.SetShadows).
type Shadows struct {
	// On draws them. With it off the renderer makes no shadow pass.
	On bool
	// Size is the shadow map's side in texels, 256 to 8192.
	Size int
	// Distance is how far from the camera, metres, shadows are drawn: the
	// map covers the camera's view up to there (or its far plane, if
	// nearer), and casters up to Distance beyond it toward the light.
	Distance float32
}

// DefaultShadows returns shadows on, a 2048-texel map, 60 m.
func DefaultShadows() Shadows { return Shadows{On: true, Size: 2048, Distance: 60} }

// Validate reports what is wrong with s, or nil.
func (s Shadows) Validate() error {
	switch {
	case !s.On:
		return nil
	case s.Size < 256 || s.Size > 8192:
		return fmt.Errorf("gfx: shadow map size %d texels, want 256 to 8192", s.Size)
	case !(s.Distance > 0 && s.Distance <= math.MaxFloat32):
		return fmt.Errorf("gfx: shadow distance %v m, want a finite value above 0", s.Distance)
	}
	return nil
}

// shadowState is the renderer's shadow pass: its programs (depth only),
// the map and its framebuffer, and the frame's light view.
type shadowState struct {
	cfg Shadows

	fbo, tex uint32
	size     int // the map's side, while tex exists

	// vp is the frame's light view-projection, matrix the shadow matrix
	// (vp then [-1, 1] to [0, 1]), eye a point far toward the light (the
	// vertex-pulling shaders' eye), texel a texel's width in metres.
	vp, invVP, matrix mgl32.Mat4
	eye               mgl32.Vec3
	texel             float32
}

// SetShadows turns the directional light's shadows on or off and sets
// their map's size and reach (DefaultShadows: 2048 texels, 60 m). With
// them on, Draw first draws the opaque instances' depth seen from the
// light (SetLight's direction) into the shadow map, an orthographic view
// fitted to the camera's view up to s.Distance and snapped to whole
// texels so that shadows do not shimmer as the camera moves; then every
// lit fragment takes away the light's diffuse part where the map says it
// is in shadow, filtered over 3x3 texels. Instances that are transparent
// cast no shadow. It returns an error, and changes nothing, when s is out
// of range (Shadows.Validate) or the map cannot be made.
func (r *Renderer) SetShadows(s Shadows) error {
	r.mustLive("SetShadows")
	if err := s.Validate(); err != nil {
		return err
	}
	sh := &r.shadow
	if s.On && s.Size != sh.size {
		r.deleteShadowMap()
		if err := r.newShadowMap(s.Size); err != nil {
			return err
		}
	}
	sh.cfg = s
	if !s.On {
		r.programs.shadowsOff()
		if r.gpu != nil {
			r.gpu.shadowsOff()
		}
	}
	return nil
}

// Shadows returns what SetShadows set (shadows off, until it is called).
func (r *Renderer) Shadows() Shadows { return r.shadow.cfg }

// newShadowMap makes the shadow map, a size x size depth texture that
// compares, and its framebuffer.
func (r *Renderer) newShadowMap(size int) error {
	sh := &r.shadow
	gl.GenTextures(1, &sh.tex)
	gl.BindTexture(gl.TEXTURE_2D, sh.tex)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.DEPTH_COMPONENT24, int32(size), int32(size), 0, gl.DEPTH_COMPONENT, gl.UNSIGNED_INT, nil)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_COMPARE_MODE, gl.COMPARE_REF_TO_TEXTURE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_COMPARE_FUNC, gl.LEQUAL)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	var prev int32
	gl.GetIntegerv(gl.FRAMEBUFFER_BINDING, &prev)
	gl.GenFramebuffers(1, &sh.fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, sh.fbo)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.TEXTURE_2D, sh.tex, 0)
	gl.DrawBuffer(gl.NONE)
	gl.ReadBuffer(gl.NONE)
	status := gl.CheckFramebufferStatus(gl.FRAMEBUFFER)
	gl.BindFramebuffer(gl.FRAMEBUFFER, uint32(prev))
	if status != gl.FRAMEBUFFER_COMPLETE {
		r.deleteShadowMap()
		return fmt.Errorf("gfx: SetShadows: the shadow map's framebuffer is incomplete (status 0x%04X)", status)
	}
	if err := CheckError(); err != nil {
		r.deleteShadowMap()
		return fmt.Errorf("gfx: SetShadows: %w", err)
	}
	sh.size = size
	r.mem.add(size * size * 4)
	return nil
}

// deleteShadowMap frees the shadow map and its framebuffer.
func (r *Renderer) deleteShadowMap() {
	sh := &r.shadow
	if sh.tex != 0 && sh.size > 0 {
		r.mem.add(-sh.size * sh.size * 4)
	}
	sh.size = 0
	deleteTexture(&sh.tex)
	if sh.fbo != 0 {
		gl.DeleteFramebuffers(1, &sh.fbo)
		sh.fbo = 0
	}
}

// fitShadow computes the frame's light view: the bounding sphere of the
// camera's view from its near plane to min(far, Distance), seen from far
// toward the light down its direction, orthographic, its centre snapped
// to whole texels of a light-space grid fixed in the world (so the map's
// texels do not crawl as the camera moves), reaching Distance beyond the
// sphere toward the light for casters outside the view. It reports false
// when there is no directional light to cast shadows (no diffuse part).
func (r *Renderer) fitShadow(cam Camera, aspect float32) bool {
	sh := &r.shadow
	l := r.light.Dir // unit, toward the light
	if r.light.Diffuse <= 0 {
		return false
	}
	far := min(cam.Far, cam.Near+sh.cfg.Distance)
	fwd := cam.Target.Sub(cam.Eye).Normalize()
	right := fwd.Cross(cam.Up).Normalize()
	up := right.Cross(fwd)
	ty := float32(math.Tan(float64(cam.FovY) / 2))
	tx := ty * aspect
	mid := (cam.Near + far) / 2
	centre := cam.Eye.Add(fwd.Mul(mid))
	var radius float32
	for _, z := range [2]float32{cam.Near, far} {
		for _, sx := range [2]float32{-1, 1} {
			for _, sy := range [2]float32{-1, 1} {
				c := cam.Eye.Add(fwd.Mul(z)).Add(right.Mul(sx * tx * z)).Add(up.Mul(sy * ty * z))
				radius = max(radius, c.Sub(centre).Len())
			}
		}
	}
	// A light-space basis fixed in the world: u, v across the light, l
	// along it.
	ref := mgl32.Vec3{0, 1, 0}
	if math.Abs(float64(l[1])) > 0.99 {
		ref = mgl32.Vec3{1, 0, 0}
	}
	u := ref.Cross(l).Normalize()
	v := l.Cross(u)
	texel := 2 * radius / float32(sh.size)
	snap := func(x float32) float32 { return float32(math.Floor(float64(x/texel))) * texel }
	cu, cv, cl := snap(centre.Dot(u)), snap(centre.Dot(v)), centre.Dot(l)
	centre = u.Mul(cu).Add(v.Mul(cv)).Add(l.Mul(cl))
	back := sh.cfg.Distance
	eye := centre.Add(l.Mul(radius + back))
	view := mgl32.LookAtV(eye, centre, v)
	proj := mgl32.Ortho(-radius, radius, -radius, radius, 0, 2*radius+back)
	sh.vp = proj.Mul4(view)
	sh.invVP = sh.vp.Inv()
	bias := mgl32.Translate3D(0.5, 0.5, 0.5).Mul4(mgl32.Scale3D(0.5, 0.5, 0.5))
	sh.matrix = bias.Mul4(sh.vp)
	// The vertex-pulling shaders pick each cube's faces, and place each
	// sphere's quad, by where the eye is: far toward the light, the rays
	// nearly parallel.
	sh.eye = centre.Add(l.Mul(1000))
	sh.texel = texel
	return true
}

// shadowPass draws the depth of the opaque instances (the first opaque of
// the streamed ones, sorted by mesh) seen from the light into the shadow
// map, then binds the frame's framebuffer and viewport (width x height)
// again, and binds the map for the lit programs. It returns the draw calls
// it made.
func (r *Renderer) shadowPass(width, height int) (draws int) {
	sh := &r.shadow
	c := &r.gl
	prev := c.getInteger(gl.DRAW_FRAMEBUFFER_BINDING)
	c.bindFramebuffer(gl.FRAMEBUFFER, sh.fbo)
	c.viewport(0, 0, int32(sh.size), int32(sh.size))
	c.clear(gl.DEPTH_BUFFER_BIT)
	c.enable(gl.POLYGON_OFFSET_FILL)
	c.polygonOffset(2, 4)
	for s, m := range r.meshes {
		first, count := r.starts[s], r.counts[s]
		if count == 0 {
			continue
		}
		switch m.pulled {
		case pulledCube:
			c.useProgram(r.shadowCube)
			c.uniformMatrix4(r.shadowCubeLoc.viewProj, &sh.vp)
			c.uniform3f(r.shadowCubeLoc.eye, sh.eye[0], sh.eye[1], sh.eye[2])
			c.bindVertexArray(r.vao)
			c.drawArrays(gl.TRIANGLES, first*verticesPerCube, count*verticesPerCube)
			draws++
		case pulledSphere:
			l := &r.shadowSphereLoc
			c.useProgram(r.shadowSphere)
			c.uniformMatrix4(l.viewProj, &sh.vp)
			c.uniformMatrix4(l.invViewProj, &sh.invVP)
			c.uniform3f(l.eye, sh.eye[0], sh.eye[1], sh.eye[2])
			c.bindVertexArray(r.vao)
			c.enable(gl.DEPTH_CLAMP)
			c.drawArrays(gl.TRIANGLES, first*verticesPerSphere, count*verticesPerSphere)
			c.disable(gl.DEPTH_CLAMP)
			draws++
		default:
			l := &r.shadowMeshLoc
			c.useProgram(r.shadowMesh)
			c.uniformMatrix4(l.viewProj, &sh.vp)
			c.uniform4i(l.frame, r.frame[0], r.frame[1], r.frame[2], 0)
			c.uniform2i(l.rest, r.rest[s].bone, r.rest[s].weight)
			for i := range m.parts {
				p := &m.parts[i]
				c.bindVertexArray(p.vao)
				c.activeTexture(gl.TEXTURE0 + targetTextureUnit)
				c.bindTexture(gl.TEXTURE_BUFFER, p.targetTex)
				c.uniform4i(l.part, first, p.numTargets, p.influences, p.firstWeight)
				c.drawElementsInstanced(gl.TRIANGLES, p.indices, p.indexType, count)
				draws++
			}
		}
	}
	c.disable(gl.POLYGON_OFFSET_FILL)
	c.bindFramebuffer(gl.FRAMEBUFFER, uint32(prev))
	c.viewport(0, 0, int32(width), int32(height))
	c.activeTexture(gl.TEXTURE0 + shadowTextureUnit)
	c.bindTexture(gl.TEXTURE_2D, sh.tex)
	c.activeTexture(gl.TEXTURE0 + instanceTextureUnit)
	return draws
}

// setShadowUniforms gives every lit program the frame's shadow matrix and
// parameters: on with the map drawn this frame (on), off otherwise.
func (r *Renderer) setShadowUniforms(on bool) {
	sh := &r.shadow
	c := &r.gl
	var params [4]float32
	if on {
		// A texel in s and t; the normal offset, two texels; no depth
		// bias beyond the pass's polygon offset.
		params = [4]float32{1, 1 / float32(sh.size), 2 * sh.texel, 0}
	}
	for i, p := range r.lit() {
		c.useProgram(p)
		c.uniformMatrix4(r.shadowLocs[i].matrix, &sh.matrix)
		c.uniform4f(r.shadowLocs[i].params, params[0], params[1], params[2], params[3])
	}
}
