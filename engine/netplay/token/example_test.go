package token_test

import (
	"fmt"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/token"
)

// A matchmaker mints a token for seat 0 of match "m-42"; the server
// opens it, and refuses it once it has expired.
func Example() {
	key, err := token.GenerateKey() // once per server; keep it with token.SaveKeyFile
	if err != nil {
		panic(err)
	}
	now := time.Now()
	creds, err := token.Mint(key, token.Request{MatchID: "m-42", Seat: 0, TTL: 30 * time.Second}, now)
	if err != nil {
		panic(err)
	}
	// creds go to the client over HTTPS; creds.Token to the server in the
	// client's Hello.
	opener := token.NewOpener(key, "m-42")
	claims, err := opener.Open(creds.Token, now.Add(time.Second))
	fmt.Println(claims.Seat, claims.Keys == creds.Keys, err)
	_, err = opener.Open(creds.Token, now.Add(time.Minute))
	fmt.Println(token.Reason(err))
	// Output:
	// 0 true <nil>
	// token-expired
}
