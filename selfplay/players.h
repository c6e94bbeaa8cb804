// Players for matches (selfplay/match.h): a uniform random mover, a one-ply greedy material
// player, an MCTS player over any nn::Evaluator, and an external UCI engine run as a child
// process.
//
// A player is asked for one move at a time, given the whole game (start position and moves)
// and a per-move budget. It answers with a move or with a failure (an engine that crashed,
// did not reply in time or sent garbage); the match runner checks the move's legality and
// scores a failure or an illegal move as a loss for that player, with the reason recorded.
//
// Players are used by one thread at a time. For concurrent games the runner gives every
// game slot its own clone(); clones of an MCTS player share the evaluator (every evaluator of
// nn/ is thread-safe, and a batching one gathers the leaves of all games into one batch);
// clones of a UCI player start their own engine process.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/game.h"
#include "nn/evaluator.h"
#include "search/search.h"

namespace xq {
class ChildProcess;  // util/subprocess.h
}  // namespace xq

namespace xq::selfplay {

// Budget of one move; 0 means unset. nodes: new search visits (MCTS) or `go nodes N` (UCI);
// movetime_ms: thinking time (`go movetime MS`); depth: `go depth N`, for UCI engines only (an
// MCTS player given a depth forfeits the move). When several are set, whichever comes first
// ends the search. Random and greedy players ignore the limits.
struct MoveLimits {
  int64_t nodes = 0;
  int64_t movetime_ms = 0;
  int64_t depth = 0;
  bool any() const { return nodes > 0 || movetime_ms > 0 || depth > 0; }
};

// Reads "nodes=N", "depth=N" and "movetime=MS", comma-separated ("depth=1",
// "nodes=800,movetime=1000"), as match tools write per-engine limits. Throws
// std::invalid_argument with a one-line message naming the bad part.
MoveLimits parse_move_limits(const std::string& text);
// The same form back ("nodes=800,movetime=1000"); "none" when nothing is set.
std::string to_string(const MoveLimits& limits);

struct PlayerMove {
  Move move;            // the move, when failure is empty
  std::string failure;  // why the player forfeits ("no reply", "engine exited", ...)
  std::string text;     // the move as the player wrote it (external engines), for messages
  // Optional statistics for the record (MCTS and UCI players that report them).
  bool has_value = false;
  float value = 0;  // (win - loss) for the mover
  uint32_t visits = 0;
};

class Player {
 public:
  virtual ~Player() = default;
  // A short name for result lines and game files.
  virtual std::string name() const = 0;
  // A new game starts from `game`'s start position (forget trees, send ucinewgame).
  virtual void new_game(const Game& game) { (void)game; }
  // The move for the side to move in `game` (not over, with at least one legal move).
  virtual PlayerMove choose(const Game& game, const MoveLimits& limits) = 0;
  // An independent player of the same kind and settings for another game slot; `seed_offset`
  // varies the random choices of random and greedy players.
  virtual std::unique_ptr<Player> clone(uint64_t seed_offset) const = 0;
};

// A player whose only state is a seeded random generator; clones get derived seeds.
template <class Derived>
class SeededPlayer : public Player {
 public:
  explicit SeededPlayer(uint64_t seed) : seed_(seed), rng_(seed) {}
  std::unique_ptr<Player> clone(uint64_t seed_offset) const override {
    return std::make_unique<Derived>(seed_ + seed_offset * 0x9E3779B97F4A7C15ull);
  }

 protected:
  uint64_t seed_;
  std::mt19937_64 rng_;
};

// Picks a uniformly random legal move.
class RandomPlayer final : public SeededPlayer<RandomPlayer> {
 public:
  explicit RandomPlayer(uint64_t seed = 1) : SeededPlayer(seed) {}
  std::string name() const override { return "random"; }
  PlayerMove choose(const Game& game, const MoveLimits& limits) override;
};

// One ply of lookahead: a move that ends the game in the mover's favour (checkmate or
// stalemate of the opponent) first, else the move that captures the most material
// (chariot 9, cannon 4.5, horse 4, advisor 2, elephant 2, pawn 1 or 2 once across the river),
// ties broken at random. It never looks at the reply, so it hangs pieces freely.
class GreedyPlayer final : public SeededPlayer<GreedyPlayer> {
 public:
  explicit GreedyPlayer(uint64_t seed = 1) : SeededPlayer(seed) {}
  std::string name() const override { return "greedy"; }
  PlayerMove choose(const Game& game, const MoveLimits& limits) override;
};

// Material value used by GreedyPlayer (king 0: capturing it never happens in legal play).
double material_value(Piece p, Square s);

struct MctsPlayerOptions {
  search::SearchParams search;
  int leaves_per_batch = 8;  // simulations in flight per evaluator call
  bool tree_reuse = true;    // keep the subtree of the moves played between two searches
  uint64_t seed = 1;
  std::string name = "mcts";
  int64_t default_nodes = 100;  // when the limits set neither nodes nor time
};

// Deterministic (no root noise) MCTS over an evaluator: the most visited move, or a proven
// win. `nodes` counts new visits of this search (visits kept from tree reuse do not count).
// A depth limit means nothing to it: the move fails (a forfeit) with a message saying so.
class MctsPlayer final : public Player {
 public:
  MctsPlayer(std::shared_ptr<nn::Evaluator> evaluator, const MctsPlayerOptions& options);
  std::string name() const override { return options_.name; }
  void new_game(const Game& game) override;
  PlayerMove choose(const Game& game, const MoveLimits& limits) override;
  std::unique_ptr<Player> clone(uint64_t seed_offset) const override;

 private:
  std::shared_ptr<nn::Evaluator> evaluator_;
  MctsPlayerOptions options_;
  search::Search search_;
};

// An external UCI engine (`/bin/sh -c command`), started at the first game (or by
// ensure_started()) and restarted after it misbehaved. Per move it sends
// `position fen F [moves ...]` (the game's start FEN, then every move played since, in the
// engine's coordinates) and `go` with the limits (`nodes N`, `depth N`, `movetime MS`;
// `depth 1` when none is set) and waits for `bestmove`.
//
// Variant engines: when the engine's `uci` reply offers the option UCI_Variant as a combo
// with a `xiangqi` choice (Fairy-Stockfish), the player sends
// `setoption name UCI_Variant value xiangqi` first and numbers ranks 1..10 in moves both ways,
// as such engines do (`h3e3` = ICCS `h2e2`). FENs need no translation: they name no ranks.
struct UciEngineOptions {
  std::string command;
  std::vector<std::pair<std::string, std::string>> options;  // sent as setoption after uciok
  // The engine numbers ranks 1..10 (some Xiangqi GUIs' convention) instead of ICCS 0..9;
  // moves are converted both ways. Forces 1..10 whatever the detection finds.
  bool ranks_from_one = false;
  bool detect_variant = true;        // select UCI_Variant xiangqi when offered (see above)
  int64_t start_timeout_ms = 10000;  // uciok / readyok
  int64_t reply_margin_ms = 2000;    // bestmove within movetime + this
  int64_t node_timeout_ms = 60000;   // bestmove within this when searching by nodes
  std::string name;                  // display name; default "uci:<id name>" or the command
  bool pass_stderr = false;          // let the engine's stderr through (default: /dev/null)
};

class UciEnginePlayer final : public Player {
 public:
  explicit UciEnginePlayer(const UciEngineOptions& options);
  ~UciEnginePlayer() override;
  UciEnginePlayer(const UciEnginePlayer&) = delete;
  UciEnginePlayer& operator=(const UciEnginePlayer&) = delete;

  std::string name() const override;
  void new_game(const Game& game) override;
  PlayerMove choose(const Game& game, const MoveLimits& limits) override;
  std::unique_ptr<Player> clone(uint64_t seed_offset) const override;

  // Starts the engine (uci, options, isready) if it is not running; "" on success, else why.
  std::string ensure_started();
  bool running() const;
  // The engine offered UCI_Variant xiangqi at its last start and it was selected.
  bool variant_selected() const { return variant_selected_; }
  // Moves are written with ranks 1..10 (ranks_from_one, or the variant selected).
  bool ranks_from_one() const { return options_.ranks_from_one || variant_selected_; }
  // What the player set up for the engine's dialect, for a line of output:
  // "UCI_Variant xiangqi selected, ranks 1..10", "ranks 1..10 (ranks_from_one)" or
  // "ranks 0..9".
  std::string dialect() const;
  // ICCS <-> the engine's coordinates.
  std::string to_engine(Move m) const;
  // Parses the engine's move text (syntax only); none on garbage.
  Move from_engine(const std::string& text) const;

 private:
  void kill_engine();
  std::string handshake();
  UciEngineOptions options_;
  std::unique_ptr<ChildProcess> proc_;
  std::string id_name_;
  bool variant_selected_ = false;
};

// The `go` command for `limits` ("go depth 1" when none is set).
std::string uci_go_command(const MoveLimits& limits);

}  // namespace xq::selfplay
