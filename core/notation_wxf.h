// WXF notation (docs/architecture.md §6), and the move description it shares with Chinese notation.
//
// A move is written relative to its mover: piece, the file it stands on, direction, and
// either a step count or the destination file. Files are numbered 1..9 from the mover's
// right (Red's 1 is file i, Black's 1 is file a); "forward" is towards the enemy side.
//   C2.5  cannon on file 2 traverses to file 5     (also read: C2=5)
//   H8+7  horse on file 8 forward to file 7
//   R1+3  chariot on file 1 forward three points   (K, R, C, P count points on a file;
//                                                    A, E, H always give the destination file)
// Two pieces of one kind on one file: the file digit becomes + (front) or - (rear): R+.3,
// C--1 (also read: +R.3, -C-1). Pawns, as the WXF describes: three on a file P+, P<file>
// (the middle one), P-; four or five: ++, P+, (P<file>,) P-, --; tandem pawns on two files:
// the file digit then +, the file digit again (middle), or -: 3+.4, 33.4, 3-.4.
// Piece letters written: K A E H R C P; also read: G (king), B M (elephant), N (horse),
// S (pawn), in either case.
#pragma once

#include <string>

#include "core/position.h"

namespace xq {

// Writes a legal move of `pos` in WXF notation.
std::string move_to_wxf(const Position& pos, Move m);

// Reads a WXF move for the side to move; throws MoveError when malformed, when no legal move
// fits, or when more than one does (the message names the candidates).
Move parse_wxf(const Position& pos, const std::string& text);

// The file number 1..9 of board file f (0..8, a..i) from colour c's right.
constexpr int relative_file(Color c, int f) { return c == RED ? 9 - f : f + 1; }

// A move described as WXF and Chinese notation see it.
struct RelativeMove {
  PieceType type;
  Color color;
  int file;          // from-file, 1..9 from the mover's right
  int on_file;       // pieces of this kind and colour on that file (>= 1)
  int index;         // 0 = the front-most of them (nearest the enemy side)
  int tandem_files;  // files that hold two or more pieces of this kind and colour
  int direction;     // +1 forward, -1 backward, 0 sideways
  int target;        // points moved (K, R, C, P along a file) or the destination file
};
RelativeMove describe_move(const Position& pos, Move m);

namespace notation_detail {

// Which of the pieces of one kind standing on one file a notation names.
enum class Pick : uint8_t {
  FILE,        // the piece on `file` (any of them, or for 3+ pawns and middle_on_file the middle)
  FRONT,       // front-most of two or more (前)
  REAR,        // rear-most of two or more (后)
  MIDDLE,      // the middle one of an odd number >= 3 (中)
  ORDINAL,     // the ordinal-th from the front, 1-based (一 二 三 ...)
  WXF_PLUS,    // WXF '+': front of 2-3, second of 4-5
  WXF_MINUS,   // WXF '-': rear of 2-3, second rearmost of 4-5
  WXF_PLUS2,   // WXF '++': front-most of 4-5
  WXF_MINUS2,  // WXF '--': rear-most of 4-5
};

struct MoveQuery {
  PieceType type = NO_PIECE_TYPE;
  Pick pick = Pick::FILE;
  int file = 0;                 // required from-file (1..9), 0 = any
  int ordinal = 0;              // for ORDINAL
  bool middle_on_file = false;  // FILE on a file with 3+ pawns means the middle one (WXF)
  int direction = 0;
  int target = 0;
};

// The single legal move fitting `q`; throws MoveError naming `text` and `notation` otherwise.
Move resolve(const Position& pos, const MoveQuery& q, const std::string& text, const char* notation);

}  // namespace notation_detail

}  // namespace xq
