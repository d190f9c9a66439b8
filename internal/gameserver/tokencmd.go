package gameserver

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/token"
	"github.com/nebulaengine/nebula/internal/cli"
)

// runToken is the token subcommand: with -new-key FILE it writes a new
// key file; otherwise it mints a connect token for -seat of match -match
// under the key in -key, valid for -ttl from now, and prints its
// credentials (token.Credentials) as one line of JSON, what a client's
// -credentials file holds. ExitOK, ExitUsage on a bad flag, ExitFailed
// when the key file cannot be read or written.
func runToken(program string, args []string, now time.Time, stdout, stderr io.Writer) int {
	name := program + " token"
	var keyFile, newKey, matchID, seat string
	var ttl time.Duration
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&keyFile, "key", "", "the server's key `file` the token is sealed under (required to mint)")
	fs.StringVar(&matchID, "match", "", "the `id` of the match the token opens: the server's -match (required to mint)")
	fs.StringVar(&seat, "seat", "", "the seat the token gives: a player's number, 0 to 255, or spectator (required to mint)")
	fs.DurationVar(&ttl, "ttl", time.Minute, fmt.Sprintf("how long the token opens a connection (at most %v); a player rejoins only with a token that has not expired", token.MaxTTL))
	fs.StringVar(&newKey, "new-key", "", "write a new random key to `file` (mode 0600; an existing file is never replaced) and mint nothing")
	err := cli.Parse(fs, args, stderr)
	if errors.Is(err, cli.ErrHelp) {
		return ExitOK
	}
	if err == nil && newKey != "" {
		if keyFile != "" || matchID != "" || seat != "" {
			err = cli.Usagef("-new-key makes a key and mints nothing: -key, -match and -seat mean nothing with it")
		} else {
			return writeNewKey(name, newKey, stderr)
		}
	}
	var req token.Request
	if err == nil {
		req, err = tokenRequest(keyFile, matchID, seat, ttl)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitUsage
	}
	key, err := token.LoadKeyFile(keyFile)
	if err != nil {
		fmt.Fprintf(stderr, "%s: -key %s: %v\n", name, keyFile, err)
		return ExitFailed
	}
	creds, err := token.Mint(key, req, now)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitFailed
	}
	if err := json.NewEncoder(stdout).Encode(creds); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitFailed
	}
	return ExitOK
}

// tokenRequest checks the token subcommand's flags.
func tokenRequest(keyFile, matchID, seat string, ttl time.Duration) (token.Request, error) {
	switch {
	case keyFile == "":
		return token.Request{}, cli.Usagef("-key is required: the server's key file (or -new-key FILE to make one)")
	case matchID == "":
		return token.Request{}, cli.Usagef("-match is required: the id of the match the token opens")
	case seat == "":
		return token.Request{}, cli.Usagef("-seat is required: a player's number, 0 to %d, or spectator", token.MaxSeat)
	case ttl <= 0 || ttl > token.MaxTTL:
		return token.Request{}, cli.Usagef("-ttl %v: must be above 0 and at most %v", ttl, token.MaxTTL)
	}
	if err := checkMatchID(matchID); err != nil {
		return token.Request{}, cli.Usagef("-match %q: %v", matchID, err)
	}
	req := token.Request{MatchID: matchID, TTL: ttl, Seat: token.Spectator}
	if seat != "spectator" {
		n, err := strconv.ParseUint(seat, 10, 16)
		if err != nil || n > uint64(token.MaxSeat) {
			return token.Request{}, cli.Usagef("-seat %q: want a player's number, 0 to %d, or spectator", seat, token.MaxSeat)
		}
		req.Seat = token.Seat(n)
	}
	return req, nil
}

// writeNewKey writes a new random key to the file path.
func writeNewKey(name, path string, stderr io.Writer) int {
	k, err := token.GenerateKey()
	if err == nil {
		err = token.SaveKeyFile(path, k)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: -new-key %s: %v\n", name, path, err)
		return ExitFailed
	}
	return ExitOK
}
