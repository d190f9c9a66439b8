package gfx

// PartShading names the program that draws part i of m: "textured"
// (mesh.frag), "plain" (mesh_plain.frag) or "faceted" (mesh_faceted.frag).
func PartShading(m *Model, i int) string {
	return [numShadings]string{shadeTextured: "textured", shadePlain: "plain", shadeFaceted: "faceted"}[m.parts[i].shading]
}
