package gfx

import (
	"github.com/nebulaengine/nebula/engine/render"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/nebulaengine/nebula/shaders"
)

// perInstance draws a Renderer's frame the naive way: one glDrawElements
// per cube, its transform and colour set as uniforms before each. It is the
// baseline BenchmarkRenderer measures instancing against, and
// TestDrawPerInstanceMatchesDraw checks that the two draw the same
// picture; a game never draws this way, so it lives with the tests. It
// shares the renderer's light, frame set-up, statistics and GL call
// counter, makes 5 GL calls per instance plus a constant few, and does not
// allocate. It draws every instance (MaxInstances does not apply).
type perInstance struct {
	r    *Renderer
	prog Program // cube_single.vert + cube.frag
	mesh Mesh    // the cube
	loc  struct {
		viewProj, lightDir, ambient, diffuse int32
		pos, rot, scale, color               int32
	}
}

// newPerInstance builds the baseline's program and mesh beside r.
func newPerInstance(r *Renderer) (*perInstance, error) {
	p := &perInstance{r: r}
	var err error
	if p.prog, err = NewProgram(shaders.FS, "cube_single.vert", "cube.frag"); err != nil {
		return nil, err
	}
	if err := checkAttribs(p.prog, "cube_single.vert", map[string]int32{"aPos": attrPos, "aNormal": attrNormal}); err != nil {
		p.Delete()
		return nil, err
	}
	u := uniforms{prog: p.prog, files: "cube_single.vert + cube.frag"}
	p.loc.viewProj = u.find("uViewProj")
	p.loc.lightDir = u.find("uLightDir")
	p.loc.ambient = u.find("uAmbient")
	p.loc.diffuse = u.find("uDiffuse")
	p.loc.pos = u.find("uPos")
	p.loc.rot = u.find("uRot")
	p.loc.scale = u.find("uScale")
	p.loc.color = u.find("uColor")
	if u.err != nil {
		p.Delete()
		return nil, u.err
	}
	if p.mesh, err = NewCubeMesh(new(MemoryCounter)); err != nil {
		p.Delete()
		return nil, err
	}
	return p, nil
}

// Draw draws the frame Renderer.Draw draws, one draw call per instance.
func (p *perInstance) Draw(width, height int, clear [4]float32, cam Camera, instances []render.Instance) {
	r := p.r
	if !r.begin("DrawPerInstance", width, height, clear, cam) {
		return
	}
	c := &r.gl
	u := &p.loc
	if len(instances) > 0 {
		c.useProgram(p.prog)
		c.uniformMatrix4(u.viewProj, &r.vp)
		l := &r.light
		c.uniform3f(u.lightDir, l.Dir[0], l.Dir[1], l.Dir[2])
		c.uniform1f(u.ambient, l.Ambient)
		c.uniform1f(u.diffuse, l.Diffuse)
		c.bindVertexArray(p.mesh.vao)
		for i := range instances {
			in := &instances[i]
			c.uniform3f(u.pos, in.Pos[0], in.Pos[1], in.Pos[2])
			c.uniform4f(u.rot, in.Rot.W, in.Rot.V[0], in.Rot.V[1], in.Rot.V[2])
			c.uniform3f(u.scale, in.Scale[0], in.Scale[1], in.Scale[2])
			c.uniform4f(u.color, float32(in.Color[0])/255, float32(in.Color[1])/255, float32(in.Color[2])/255, float32(in.Color[3])/255)
			c.drawElements(gl.TRIANGLES, p.mesh.indices, gl.UNSIGNED_SHORT)
		}
		c.bindVertexArray(0)
	}
	r.end(len(instances), len(instances))
	checkFrame("the per-instance baseline")
}

// Delete frees the baseline's program and mesh.
func (p *perInstance) Delete() {
	p.prog.Delete()
	p.mesh.Delete()
}

// The GL calls only the baseline makes, counted like the renderer's.

// drawElements draws count indices of the bound element buffer from its
// start.
func (c *glCounter) drawElements(mode uint32, count int32, xtype uint32) {
	c.calls++
	gl.DrawElements(mode, count, xtype, nil)
}
