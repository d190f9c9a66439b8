// Package token mints and opens connect tokens: what proves to a match
// server that a client may take a seat in its match, in the manner of
// netcode.io. A matchmaker that allocated a server mints a token per
// player (Mint, or `nebula-server token`) under the server's Key and
// hands the client the Credentials over HTTPS: the token, opaque to the
// client, and the connection's two session keys in clear. The client
// sends the token in its Hello; the server opens it (Opener.Open) and
// finds the same keys inside, so both ends seal the rest of the
// connection (package seal) without any key exchange, and nobody on the
// path, who sees the token but not the keys, can read or forge it.
//
// A token names the match, the seat (a player's number or Spectator), an
// expiry and a random ID, and carries the session keys. Its layout (all
// integers little-endian):
//
//	0   version    uint8   1
//	1   expires    int64   Unix milliseconds: the token opens nothing from then on
//	9   match id   uint8 length (1 to 64) + bytes
//	    id         [24]byte random: the token's ID and the nonce of its seal
//	    sealed     XChaCha20-Poly1305 under the server's Key, of
//	                 seat             uint16  0 to 255, or 0xffff for a spectator
//	                 client to server [32]byte
//	                 server to client [32]byte
//	               and its 16-byte tag; the clear fields before it are its
//	               additional data, so none of them can be altered either
//
// Open checks, cheapest first: the size, the version, the expiry, the
// match id, then the seal, so a flood of forged or expired tokens costs
// the server a few comparisons each, and only a token minted for its
// match costs it one XChaCha20-Poly1305 open. A replayed token (one in
// use, or used) opens like any other: package netplay keeps the IDs of
// the tokens it has seen and refuses those.
//
// A key file is one line, "nebula-token-key-v1 " and the key in hex:
//
//	key, err := token.GenerateKey()
//	err = token.SaveKeyFile("match.key", key) // mode 0600; never replaces a file
//
//	// The matchmaker, for each player of an allocated server:
//	creds, err := token.Mint(key, token.Request{MatchID: "m-42", Seat: 0, TTL: time.Minute}, time.Now())
//	json.NewEncoder(w).Encode(creds) // to the client, over HTTPS
//
//	// The server (netplay.ServerConfig.TokenKey does this):
//	claims, err := token.NewOpener(key, "m-42").Open(creds.Token, time.Now())
//	reason := token.Reason(err) // "token-expired", ...
package token
