package gfx

import (
	"fmt"
	"io/fs"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
)

// programs is one path's set of programs and their uniform locations: the
// CPU path's, whose vertex shaders read the frame's render.Instance
// records (shaders/instance.glsl), or the GPU path's, whose vertex
// shaders place each instance between two ticks (instance_gpu.glsl). The
// two are built from the same files; only that include differs.
type programs struct {
	prog       Program // cube.vert + cube.frag
	sphereProg Program // sphere.vert + sphere.frag
	// meshProgs are mesh.vert with each part shading's fragment shader
	// (meshFragments).
	meshProgs [numShadings]meshProgram

	loc struct { // uniform locations in prog
		viewProj, eye, lightDir, ambient, diffuse, instances int32
	}
	sphereLoc struct { // uniform locations in sphereProg
		viewProj, invViewProj, eye, lightDir, ambient, diffuse, instances int32
	}

	// The shadow pass's depth-only programs and their uniforms.
	shadowCube                     Program // cube.vert + depth.frag
	shadowSphere                   Program // sphere.vert + sphere_depth.frag
	shadowMesh                     Program // mesh.vert + depth.frag
	shadowCubeLoc, shadowSphereLoc struct {
		viewProj, invViewProj, eye int32
	}
	shadowMeshLoc struct {
		viewProj, frame, part, rest int32
	}
	// shadowLocs are the shadow uniforms' locations in each lit program
	// (lit's order).
	shadowLocs []struct{ matrix, params int32 }

	// The GPU path's per-frame uniforms, in every program (all's order):
	// uAlpha; -1 in the CPU path's programs, which have none.
	alphaLocs []int32
}

// gpuFS is shaders.FS with instance.glsl read from instance_gpu.glsl: the
// GPU path's files.
type gpuFS struct{ fs.FS }

// Open opens name, instance_gpu.glsl for instance.glsl.
func (g gpuFS) Open(name string) (fs.File, error) {
	if name == "instance.glsl" {
		name = "instance_gpu.glsl"
	}
	return g.FS.Open(name)
}

// buildPrograms compiles and links every program of a path from fsys,
// finds their uniforms, points their samplers at their texture units and
// their Lights blocks at lightBinding. Uniforms the depth-only programs do
// not use are dropped by the linker: those are looked up leniently.
func (r *Renderer) buildPrograms(fsys fs.FS, p *programs) error {
	var err error
	if p.prog, err = NewProgram(fsys, "cube.vert", "cube.frag"); err != nil {
		return err
	}
	u := uniforms{prog: p.prog, files: "cube.vert + cube.frag"}
	p.loc.viewProj = u.find("uViewProj")
	p.loc.eye = u.find("uEye")
	p.loc.lightDir = u.find("uLightDir")
	p.loc.ambient = u.find("uAmbient")
	p.loc.diffuse = u.find("uDiffuse")
	p.loc.instances = u.find("uInstances")
	if u.err != nil {
		return u.err
	}
	if p.sphereProg, err = NewProgram(fsys, "sphere.vert", "sphere.frag"); err != nil {
		return err
	}
	u = uniforms{prog: p.sphereProg, files: "sphere.vert + sphere.frag"}
	sl := &p.sphereLoc
	sl.viewProj = u.find("uViewProj")
	sl.invViewProj = u.find("uInvViewProj")
	sl.eye = u.find("uEye")
	sl.lightDir = u.find("uLightDir")
	sl.ambient = u.find("uAmbient")
	sl.diffuse = u.find("uDiffuse")
	sl.instances = u.find("uInstances")
	if u.err != nil {
		return u.err
	}
	for sh := range p.meshProgs {
		if err := p.meshProgs[sh].build(fsys, shading(sh)); err != nil {
			return err
		}
	}
	if p.shadowCube, err = NewProgram(fsys, "cube.vert", "depth.frag"); err != nil {
		return err
	}
	if p.shadowSphere, err = NewProgram(fsys, "sphere.vert", "sphere_depth.frag"); err != nil {
		return err
	}
	if p.shadowMesh, err = NewProgram(fsys, "mesh.vert", "depth.frag"); err != nil {
		return err
	}
	at := func(prog Program, name string) int32 { return gl.GetUniformLocation(uint32(prog), gl.Str(name+"\x00")) }
	p.shadowCubeLoc.viewProj, p.shadowCubeLoc.eye = at(p.shadowCube, "uViewProj"), at(p.shadowCube, "uEye")
	sl2 := &p.shadowSphereLoc
	sl2.viewProj, sl2.invViewProj, sl2.eye = at(p.shadowSphere, "uViewProj"), at(p.shadowSphere, "uInvViewProj"), at(p.shadowSphere, "uEye")
	ml := &p.shadowMeshLoc
	ml.viewProj, ml.frame, ml.part, ml.rest = at(p.shadowMesh, "uViewProj"), at(p.shadowMesh, "uFrame"), at(p.shadowMesh, "uPart"), at(p.shadowMesh, "uRest")

	for _, prog := range p.all() {
		gl.UseProgram(uint32(prog))
		gl.Uniform1i(at(prog, "uInstances"), instanceTextureUnit)
		gl.Uniform1i(at(prog, "uDrawList"), drawListTextureUnit)
		gl.Uniform1i(at(prog, "uPoses"), poseTextureUnit)
		gl.Uniform1i(at(prog, "uPoseWords"), poseWordTextureUnit)
		gl.Uniform1i(at(prog, "uTargets"), targetTextureUnit)
		p.alphaLocs = append(p.alphaLocs, at(prog, "uAlpha"))
	}
	for _, prog := range p.lit() {
		gl.UseProgram(uint32(prog))
		gl.Uniform1i(at(prog, "uShadowMap"), shadowTextureUnit)
		u := uniforms{prog: prog, files: "a lit program"}
		p.shadowLocs = append(p.shadowLocs, struct{ matrix, params int32 }{u.find("uShadowMatrix"), u.find("uShadowParams")})
		if u.err != nil {
			return u.err
		}
		idx := gl.GetUniformBlockIndex(uint32(prog), gl.Str("Lights\x00"))
		if idx == gl.INVALID_INDEX {
			return fmt.Errorf("gfx: a lit program has no uniform block Lights (does it include lights.glsl and use pointLights?)")
		}
		gl.UniformBlockBinding(uint32(prog), idx, lightBinding)
	}
	gl.UseProgram(0)
	return nil
}

// litCount and allCount are the sizes of lit's and all's arrays.
const (
	litCount = 2 + int(numShadings)
	allCount = litCount + 3
)

// lit returns the programs that light fragments (and include lights.glsl
// and shadow.glsl), as an array: the per-frame loops over it allocate
// nothing.
func (p *programs) lit() [litCount]Program {
	var ps [litCount]Program
	ps[0], ps[1] = p.prog, p.sphereProg
	for i := range p.meshProgs {
		ps[2+i] = p.meshProgs[i].prog
	}
	return ps
}

// all returns every program of the set: the lit ones, then the shadow
// pass's.
func (p *programs) all() [allCount]Program {
	var ps [allCount]Program
	lit := p.lit()
	copy(ps[:], lit[:])
	ps[litCount], ps[litCount+1], ps[litCount+2] = p.shadowCube, p.shadowSphere, p.shadowMesh
	return ps
}

// setLight gives the lit programs the directional light: its unit
// direction d, and l's ambient and diffuse parts.
func (p *programs) setLight(d mgl32.Vec3, l Light) {
	gl.UseProgram(uint32(p.prog))
	gl.Uniform3f(p.loc.lightDir, d[0], d[1], d[2])
	gl.Uniform1f(p.loc.ambient, l.Ambient)
	gl.Uniform1f(p.loc.diffuse, l.Diffuse)
	for i := range p.meshProgs {
		mp := &p.meshProgs[i]
		gl.UseProgram(uint32(mp.prog))
		gl.Uniform3f(mp.loc.lightDir, d[0], d[1], d[2])
		gl.Uniform1f(mp.loc.ambient, l.Ambient)
		gl.Uniform1f(mp.loc.diffuse, l.Diffuse)
	}
	gl.UseProgram(uint32(p.sphereProg))
	gl.Uniform3f(p.sphereLoc.lightDir, d[0], d[1], d[2])
	gl.Uniform1f(p.sphereLoc.ambient, l.Ambient)
	gl.Uniform1f(p.sphereLoc.diffuse, l.Diffuse)
	gl.UseProgram(0)
}

// shadowsOff tells the lit programs that there are no shadows.
func (p *programs) shadowsOff() {
	for i, prog := range p.lit() {
		gl.UseProgram(uint32(prog))
		gl.Uniform4f(p.shadowLocs[i].params, 0, 0, 0, 0)
	}
	gl.UseProgram(0)
}

// delete frees the set's programs.
func (p *programs) delete() {
	p.prog.Delete()
	for i := range p.meshProgs {
		p.meshProgs[i].prog.Delete()
	}
	p.sphereProg.Delete()
	p.shadowCube.Delete()
	p.shadowSphere.Delete()
	p.shadowMesh.Delete()
}
