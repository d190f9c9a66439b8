// Package deploycheck holds no code: its tests check what an operator
// deploys, in deploy/.
//
// TestImage builds the server's image from deploy/Dockerfile with podman
// (from a static binary of cmd/nebula-server built as the Dockerfile
// says), saves it, unpacks its layers into an empty folder, checks the
// image's configuration (entrypoint, user, exposed ports) and that the
// binary is static (no ELF interpreter, no shared library), and runs the
// entrypoint there with an empty environment: a short match, with a
// headless client from the same binary. Podman builds such an image
// without running a container (FROM scratch needs no registry); where
// it is missing or cannot build even a one-file image, the test says so
// in one line and skips.
//
// TestManifests reads the Agones manifests (deploy/fleet.yaml,
// fleetautoscaler.yaml, allocation.yaml) strictly (an unknown field of
// the Agones objects is an error, as kubectl apply --validate=strict
// would find it) and checks that they agree with each other, with the
// Dockerfile (image name, ports) and with the server (health period,
// flags, the token key's file on a mounted Secret it can read).
package deploycheck
