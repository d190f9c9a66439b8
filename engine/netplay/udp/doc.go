// Package udp is a transport for Nebula's multiplayer protocol over UDP.
package udp
