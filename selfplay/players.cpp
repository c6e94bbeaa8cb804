#include "selfplay/players.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <climits>
#include <sstream>
#include <stdexcept>

#include "core/movegen.h"
#include "search/search_driver.h"

namespace xq::selfplay {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Move limits

namespace {

constexpr const char* kLimitsForm = "expected nodes=N, depth=N or movetime=MS, comma-separated";

// "bad limit 'depth=x'", with " in 'nodes=5,depth=x'" when the item is one of several.
std::string bad_limit(const std::string& item, const std::string& text) {
  return "bad limit '" + item + "'" + (item == text ? "" : " in '" + text + "'");
}

// The value of one "key=value" limit: an integer in 1..hi, else an error naming the limit.
int64_t limit_value(const std::string& item, const std::string& text, const std::string& key, const std::string& value,
                    int64_t hi) {
  const bool digits = !value.empty() && value.size() <= 18 &&
                      std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
  const long long n = digits ? std::stoll(value) : 0;
  if (n < 1 || n > hi)
    throw std::invalid_argument(bad_limit(item, text) + ": " + key + " takes an integer 1.." + std::to_string(hi));
  return n;
}

// The field of `limits` that `key` names, and its largest value; nullptr for another key.
int64_t* limit_field(MoveLimits& limits, const std::string& key, int64_t& hi) {
  hi = key == "nodes" ? 1000000000 : key == "depth" ? 1000 : 86400000;
  if (key == "nodes") return &limits.nodes;
  if (key == "depth") return &limits.depth;
  if (key == "movetime") return &limits.movetime_ms;
  return nullptr;
}

}  // namespace

MoveLimits parse_move_limits(const std::string& text) {
  MoveLimits out;
  if (text.empty()) throw std::invalid_argument(std::string("no limits given: ") + kLimitsForm);
  if (text.back() == ',') throw std::invalid_argument("bad limits '" + text + "': " + kLimitsForm);
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    int64_t hi = 0;
    int64_t* field = limit_field(out, key, hi);
    if (eq == std::string::npos || field == nullptr)
      throw std::invalid_argument(bad_limit(item, text) + ": " + kLimitsForm);
    if (*field != 0) throw std::invalid_argument("bad limits '" + text + "': " + key + " given twice");
    *field = limit_value(item, text, key, item.substr(eq + 1), hi);
  }
  return out;
}

std::string to_string(const MoveLimits& limits) {
  std::string s;
  auto add = [&](const char* key, int64_t v) {
    if (v > 0) s += (s.empty() ? "" : ",") + std::string(key) + "=" + std::to_string(v);
  };
  add("nodes", limits.nodes);
  add("depth", limits.depth);
  add("movetime", limits.movetime_ms);
  return s.empty() ? "none" : s;
}

// ---------------------------------------------------------------------------------------------
// Random and greedy players

PlayerMove RandomPlayer::choose(const Game& game, const MoveLimits&) {
  PlayerMove out;
  const MoveList moves(game.position());
  if (moves.empty()) {
    out.failure = "no legal move";
    return out;
  }
  out.move = moves[int(std::uniform_int_distribution<int>(0, moves.size() - 1)(rng_))];
  return out;
}

double material_value(Piece p, Square s) {
  switch (type_of(p)) {
    case CHARIOT: return 9;
    case CANNON: return 4.5;
    case HORSE: return 4;
    case ADVISOR:
    case ELEPHANT: return 2;
    case PAWN: return own_half(color_of(p), s) ? 1 : 2;
    default: return 0;
  }
}

PlayerMove GreedyPlayer::choose(const Game& game, const MoveLimits&) {
  PlayerMove out;
  const Position& pos = game.position();
  const MoveList moves(pos);
  if (moves.empty()) {
    out.failure = "no legal move";
    return out;
  }
  Position p = pos;
  double best = -1;
  std::vector<Move> ties;
  for (const Move m : moves) {
    double score = pos.empty(m.to()) ? 0.0 : material_value(pos.piece_on(m.to()), m.to());
    UndoInfo u;
    p.do_move(m, u);
    Move replies[MAX_MOVES];
    if (generate_legal(p, replies) == 0) score += 1000;  // the opponent is mated or stalemated
    p.undo_move(m, u);
    if (score > best) {
      best = score;
      ties.clear();
    }
    if (score == best) ties.push_back(m);
  }
  out.move = ties[size_t(std::uniform_int_distribution<size_t>(0, ties.size() - 1)(rng_))];
  return out;
}

// ---------------------------------------------------------------------------------------------
// MCTS player

MctsPlayer::MctsPlayer(std::shared_ptr<nn::Evaluator> evaluator, const MctsPlayerOptions& options)
    : evaluator_(std::move(evaluator)), options_(options), search_(options.search, options.seed) {}

void MctsPlayer::new_game(const Game&) { search_.reset(); }

std::unique_ptr<Player> MctsPlayer::clone(uint64_t seed_offset) const {
  MctsPlayerOptions o = options_;
  o.seed += seed_offset;
  return std::make_unique<MctsPlayer>(evaluator_, o);
}

PlayerMove MctsPlayer::choose(const Game& game, const MoveLimits& limits) {
  if (limits.depth > 0) {
    PlayerMove out;
    out.failure = "a depth limit is for UCI engines; an MCTS player takes nodes or movetime";
    return out;
  }
  Game g = game;
  if (options_.tree_reuse)
    search_.sync_to(g);
  else
    search_.reset();
  const int64_t nodes = limits.nodes > 0 ? limits.nodes : limits.movetime_ms > 0 ? INT_MAX : options_.default_nodes;
  const int budget = int(std::min<int64_t>(INT_MAX, std::max<int64_t>(1, nodes)));  // new visits
  search_.start_move(g, budget, false);
  search::DriveLimits drive;
  if (limits.movetime_ms > 0) drive.deadline = Clock::now() + std::chrono::milliseconds(limits.movetime_ms);
  try {
    search::drive_search(search_, g, *evaluator_, options_.leaves_per_batch, drive);
  } catch (const std::exception& e) {
    search_.reset();  // the tree is consistent (cancel_pending), but this game is forfeited
    PlayerMove out;
    out.failure = std::string("evaluator error: ") + e.what();
    return out;
  }
  const search::SearchResult r = search_.result();
  PlayerMove out;
  if (r.moves.empty() || r.best.is_none()) {
    out.failure = "the search found no move";
    return out;
  }
  out.move = r.best;
  out.has_value = true;
  out.value = r.value;
  out.visits = r.visits;
  return out;
}

}  // namespace xq::selfplay
