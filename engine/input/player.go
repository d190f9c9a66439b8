package input

// PlayerID names a player of a match, whose devices a Sample comes from:
// 0 to MaxPlayers-1. A single-player game is player 0.
type PlayerID uint16

// MaxPlayers is the number of player IDs: a match has at most this many
// players, numbered 0 to MaxPlayers-1.
const MaxPlayers = 256
