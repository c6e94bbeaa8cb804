// A game with history: a start position, the moves played, undo, the hashes needed for
// repetition, and the judged state (docs/architecture.md §5): ongoing, or finished with a result and the
// reason it ended.
//
// Judging order at a position: no legal move (checkmate / stalemate: the side to move loses),
// then repetition (repetition.h), dead draw, natural limit, length cap. Resignation and
// adjudication are set from outside and override the judgement from the ply they were set.
//
// The judged state of the current ply is computed on first query and cached, so search can
// ask at every node: the common case costs one legal-move generation and a walk back over
// the position hashes, two plies at a time, no further than the last capture. Only a
// detected repetition replays the cycle to judge it. Nothing is allocated per query, and
// play() allocates only when the history outgrows its reserved capacity.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/position.h"

namespace xq {

enum class Result : uint8_t { ONGOING, RED_WIN, BLACK_WIN, DRAW };

enum class Termination : uint8_t {
  ONGOING,
  CHECKMATE,
  STALEMATE,
  PERPETUAL_CHECK,
  PERPETUAL_CHASE,
  REPETITION_DRAW,
  NATURAL_LIMIT,
  DEAD_DRAW,
  LENGTH_CAP,
  RESIGNATION,
  ADJUDICATION,
};

constexpr int TERMINATION_NB = int(Termination::ADJUDICATION) + 1;

const char* to_string(Result r);       // "1-0", "0-1", "1/2-1/2", "*"
const char* to_string(Termination t);  // "checkmate", "perpetual check", ..., "ongoing"
// Parses the names above (for records and command lines); false when unknown.
bool parse_result(const std::string& text, Result& out);
bool parse_termination(const std::string& text, Termination& out);

inline Result win_for(Color c) { return c == RED ? Result::RED_WIN : Result::BLACK_WIN; }

struct GameState {
  Result result = Result::ONGOING;
  Termination reason = Termination::ONGOING;
  bool over() const { return result != Result::ONGOING; }
  bool operator==(const GameState& o) const { return result == o.result && reason == o.reason; }
  bool operator!=(const GameState& o) const { return !(*this == o); }
  // "result: 1-0 reason: perpetual check"
  std::string to_string() const;
};

struct GameSettings {
  // Judge a repetition when the current position occurred this many times before (with the
  // same side to move, since the last capture). 1 = at the first recurrence (self-play);
  // 2 = at the third occurrence (three-fold). Must be >= 1.
  int repetitions = 1;
  // Plies played in this game after which it is a draw by length cap; 0 = no cap.
  int length_cap = 0;
  // Plies without a capture (the FEN halfmove field) that make a draw; 0 = off.
  int natural_limit = 120;
};

class Game {
 public:
  explicit Game(const Position& start = Position(), const GameSettings& settings = GameSettings());
  // Throws FenError for a bad FEN.
  explicit Game(const std::string& start_fen, const GameSettings& settings = GameSettings());

  const GameSettings& settings() const { return settings_; }
  // Throws std::invalid_argument for out-of-range values.
  void set_settings(const GameSettings& settings);

  const Position& position() const { return pos_; }
  const Position& start_position() const { return start_; }
  Color side_to_move() const { return pos_.side_to_move(); }
  int ply() const { return int(moves_.size()); }   // moves played in this game
  Move move_at(int i) const { return moves_[i]; }  // 0 <= i < ply()
  const std::vector<Move>& moves() const { return moves_; }
  Move last_move() const { return moves_.empty() ? Move() : moves_.back(); }
  uint64_t key() const { return plies_.back().key; }
  bool in_check() const { return plies_.back().in_check; }

  // Plays a move that must be legal in position() (checked only by assert; search's path).
  void play(Move m);
  // Parses ICCS, checks legality and plays it; throws MoveError naming the move and why.
  Move play(const std::string& iccs);
  // Takes back the last move; throws std::logic_error when there is none.
  void undo();

  // The judged state of the current position (cached per ply).
  GameState state() const;
  bool over() const { return state().over(); }
  bool has_legal_move() const;
  // How many times the current position occurred before in this game (same side to move,
  // since the last capture).
  int repetition_count() const;

  // The game goes on from the current position although it is judged over (a GUI whose
  // rules differ, e.g. on repetitions): this ply counts as ongoing until it is undone
  // (unless it has no legal move);
  // later positions are judged as usual, with the whole history, so a repetition of a
  // position before this ply still counts.
  void play_on() { play_on_ply_ = ply(); }

  // The side `loser` resigns / the game is adjudicated, at the current ply. Undoing past that
  // ply clears it. Adjudication with Result::ONGOING clears a previous one.
  void resign(Color loser);
  void adjudicate(Result result);

 private:
  struct PlyInfo {
    uint64_t key;
    bool in_check;
    mutable int8_t has_legal;  // -1 unknown
    mutable bool judged;
    mutable GameState state;
  };
  void push_ply();
  GameState judge() const;
  GameState judge_repetition() const;

  GameSettings settings_;
  Position start_;
  Position pos_;
  std::vector<Move> moves_;
  std::vector<UndoInfo> undos_;
  std::vector<PlyInfo> plies_;  // plies_[i]: the position after i moves; size ply() + 1
  int override_ply_ = -1;       // ply of a resignation or adjudication, -1 for none
  int play_on_ply_ = -1;        // ply judged ongoing whatever the rules say (play_on), -1 for none
  GameState override_;
};

}  // namespace xq
