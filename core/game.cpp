#include "core/game.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "core/move_parse.h"
#include "core/movegen.h"
#include "core/repetition.h"

namespace xq {

namespace {

constexpr const char* kResultNames[] = {"*", "1-0", "0-1", "1/2-1/2"};
constexpr const char* kTerminationNames[] = {
    "ongoing",       "checkmate", "stalemate",  "perpetual check", "perpetual chase", "repetition draw",
    "natural limit", "dead draw", "length cap", "resignation",     "adjudication",
};
constexpr int kTerminationCount = int(sizeof(kTerminationNames) / sizeof(kTerminationNames[0]));
static_assert(kTerminationCount == TERMINATION_NB, "a name for every Termination");
constexpr int kReservedPlies = 512;

}  // namespace

const char* to_string(Result r) { return kResultNames[int(r) & 3]; }

const char* to_string(Termination t) { return int(t) < kTerminationCount ? kTerminationNames[int(t)] : "unknown"; }

bool parse_result(const std::string& text, Result& out) {
  for (int i = 0; i < 4; ++i)
    if (text == kResultNames[i]) {
      out = Result(i);
      return true;
    }
  return false;
}

bool parse_termination(const std::string& text, Termination& out) {
  for (int i = 0; i < kTerminationCount; ++i)
    if (text == kTerminationNames[i]) {
      out = Termination(i);
      return true;
    }
  return false;
}

std::string GameState::to_string() const {
  return std::string("result: ") + xq::to_string(result) + " reason: " + xq::to_string(reason);
}

Game::Game(const Position& start, const GameSettings& settings) : start_(start), pos_(start) {
  set_settings(settings);
  moves_.reserve(kReservedPlies);
  undos_.reserve(kReservedPlies);
  plies_.reserve(kReservedPlies + 1);
  push_ply();
}

Game::Game(const std::string& start_fen, const GameSettings& settings)
    : Game(Position::from_fen(start_fen), settings) {}

void Game::set_settings(const GameSettings& s) {
  if (s.repetitions < 1) throw std::invalid_argument("repetitions must be at least 1");
  if (s.length_cap < 0) throw std::invalid_argument("length cap must not be negative");
  if (s.natural_limit < 0) throw std::invalid_argument("natural limit must not be negative");
  settings_ = s;
  for (const PlyInfo& p : plies_) p.judged = false;
}

void Game::push_ply() { plies_.push_back(PlyInfo{pos_.key(), pos_.in_check(), -1, false, GameState()}); }

void Game::play(Move m) {
  assert(is_legal(pos_, m));
  UndoInfo undo;
  pos_.do_move(m, undo);
  moves_.push_back(m);
  undos_.push_back(undo);
  push_ply();
}

Move Game::play(const std::string& iccs) {
  const Move m = parse_legal_move(pos_, iccs);
  play(m);
  return m;
}

void Game::undo() {
  if (moves_.empty()) throw std::logic_error("no move to undo");
  pos_.undo_move(moves_.back(), undos_.back());
  moves_.pop_back();
  undos_.pop_back();
  plies_.pop_back();
  if (ply() < override_ply_) override_ply_ = -1;
  if (ply() < play_on_ply_) play_on_ply_ = -1;
}

void Game::resign(Color loser) {
  override_ply_ = ply();
  override_ = GameState{win_for(~loser), Termination::RESIGNATION};
}

void Game::adjudicate(Result result) {
  if (result == Result::ONGOING) {
    override_ply_ = -1;
    return;
  }
  override_ply_ = ply();
  override_ = GameState{result, Termination::ADJUDICATION};
}

bool Game::has_legal_move() const {
  const PlyInfo& p = plies_.back();
  if (p.has_legal < 0) {
    Move moves[MAX_MOVES];
    p.has_legal = generate_legal(pos_, moves) > 0;
  }
  return p.has_legal != 0;
}

int Game::repetition_count() const {
  const int now = ply();
  const int oldest = now - std::min(now, pos_.halfmove_clock());
  const uint64_t k = key();
  int count = 0;
  // A position cannot recur after two plies (each side moved one piece), so start at four.
  for (int q = now - 4; q >= oldest; q -= 2) count += plies_[q].key == k;
  return count;
}

GameState Game::state() const {
  if (override_ply_ >= 0 && ply() >= override_ply_) return override_;
  if (ply() == play_on_ply_ && has_legal_move()) return GameState();
  const PlyInfo& p = plies_.back();
  if (!p.judged) {
    p.state = judge();
    p.judged = true;
  }
  return p.state;
}

GameState Game::judge() const {
  if (!has_legal_move())
    return GameState{win_for(~side_to_move()), in_check() ? Termination::CHECKMATE : Termination::STALEMATE};
  const GameState rep = judge_repetition();
  if (rep.over()) return rep;
  bool material = false;
  for (Color c : {RED, BLACK})
    for (PieceType t : {CHARIOT, HORSE, CANNON, PAWN}) material |= pos_.count(c, t) > 0;
  if (!material) return GameState{Result::DRAW, Termination::DEAD_DRAW};
  if (settings_.natural_limit > 0 && pos_.halfmove_clock() >= settings_.natural_limit)
    return GameState{Result::DRAW, Termination::NATURAL_LIMIT};
  if (settings_.length_cap > 0 && ply() >= settings_.length_cap)
    return GameState{Result::DRAW, Termination::LENGTH_CAP};
  return GameState();
}

GameState Game::judge_repetition() const {
  const int now = ply();
  const int oldest = now - std::min(now, pos_.halfmove_clock());
  const uint64_t k = key();
  int count = 0, first = -1;
  for (int q = now - 4; q >= oldest && count < settings_.repetitions; q -= 2)
    if (plies_[q].key == k) {
      ++count;
      first = q;
    }
  if (count < settings_.repetitions) return GameState();
  // Judge all the moves since the earliest of the counted occurrences.
  Position cycle_start = pos_;
  for (int i = now - 1; i >= first; --i) cycle_start.undo_move(moves_[i], undos_[i]);
  const CycleVerdict v = judge_cycle(cycle_start, moves_.data() + first, now - first);
  if (v.loser < 0) return GameState{Result::DRAW, Termination::REPETITION_DRAW};
  return GameState{win_for(~Color(v.loser)), v.by_check ? Termination::PERPETUAL_CHECK : Termination::PERPETUAL_CHASE};
}

}  // namespace xq
