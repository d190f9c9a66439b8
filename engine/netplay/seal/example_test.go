package seal_test

import (
	"fmt"

	"github.com/nebulaengine/nebula/engine/netplay/seal"
)

// Both ends derive their keys from a token's two keys and the client's
// salt; a datagram sealed by one opens at the other, once.
func Example() {
	var c2s, s2c [seal.KeySize]byte // from the connect token (token.Credentials.Keys)
	c2s[0], s2c[0] = 1, 2
	salt := [seal.SaltSize]byte{7} // the client draws it for each connection
	client := seal.NewPackets(seal.ClientKeys(c2s, s2c, salt))
	server := seal.NewPackets(seal.ServerKeys(c2s, s2c, salt))

	header := []byte{0xB7, 7}
	pkt := client.Seal(append([]byte(nil), header...), []byte("input for tick 42"))
	body, err := server.Open(nil, pkt, len(header))
	fmt.Printf("%q %v\n", body, err)
	_, err = server.Open(nil, pkt, len(header))
	fmt.Println(err)
	// Output:
	// "input for tick 42" <nil>
	// seal: a replayed or too old packet: packet 0, the highest opened is 0
}
