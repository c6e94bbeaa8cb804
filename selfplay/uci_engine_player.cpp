// UciEnginePlayer (selfplay/players.h): an external UCI engine as a match player, run as a
// child process (util/subprocess.h).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <stdexcept>

#include "core/movegen.h"
#include "selfplay/players.h"
#include "util/subprocess.h"
#include "util/text.h"

namespace xq::selfplay {

using Clock = std::chrono::steady_clock;

namespace {

// Whether a line of the engine's `uci` reply offers UCI_Variant as a combo with a xiangqi
// choice: "option name UCI_Variant type combo default chess var ... var xiangqi ...".
bool offers_xiangqi_variant(const std::string& line) {
  std::istringstream in(line);
  std::string word, name;
  if (!(in >> word) || word != "option" || !(in >> word) || word != "name") return false;
  while (in >> word && word != "type") name += (name.empty() ? "" : " ") + word;
  if (to_lower(name) != "uci_variant" || !(in >> word) || word != "combo") return false;
  bool after_var = false;
  while (in >> word) {
    if (after_var && to_lower(word) == "xiangqi") return true;
    after_var = word == "var";
  }
  return false;
}

// How long to wait for bestmove: movetime plus the margin when a time bounds the search,
// the node timeout otherwise (an engine may honour only one of nodes/depth and movetime).
int64_t reply_wait_ms(const MoveLimits& limits, const UciEngineOptions& o) {
  if (limits.movetime_ms <= 0) return o.node_timeout_ms;
  const int64_t timed = limits.movetime_ms + o.reply_margin_ms;
  return limits.nodes > 0 || limits.depth > 0 ? std::max(timed, o.node_timeout_ms) : timed;
}

}  // namespace

std::string uci_go_command(const MoveLimits& limits) {
  if (!limits.any()) return "go depth 1";
  std::string go = "go";
  if (limits.depth > 0) go += " depth " + std::to_string(limits.depth);
  if (limits.nodes > 0) go += " nodes " + std::to_string(limits.nodes);
  if (limits.movetime_ms > 0) go += " movetime " + std::to_string(limits.movetime_ms);
  return go;
}

UciEnginePlayer::UciEnginePlayer(const UciEngineOptions& options) : options_(options) {}

UciEnginePlayer::~UciEnginePlayer() {
  if (proc_) proc_->quit(500);
}

std::string UciEnginePlayer::name() const {
  if (!options_.name.empty()) return options_.name;
  if (!id_name_.empty()) return "uci:" + id_name_;
  return "uci:" + options_.command;
}

bool UciEnginePlayer::running() const { return proc_ && proc_->running(); }

void UciEnginePlayer::kill_engine() {
  if (proc_) proc_->kill_now();
  proc_.reset();
}

std::unique_ptr<Player> UciEnginePlayer::clone(uint64_t) const { return std::make_unique<UciEnginePlayer>(options_); }

std::string UciEnginePlayer::dialect() const {
  if (variant_selected_) return "UCI_Variant xiangqi selected, ranks 1..10";
  if (options_.ranks_from_one) return "ranks 1..10 (ranks_from_one)";
  return "ranks 0..9";
}

std::string UciEnginePlayer::to_engine(Move m) const {
  const int add = ranks_from_one() ? 1 : 0;
  std::string s;
  s += char('a' + file_of(m.from()));
  s += std::to_string(rank_of(m.from()) + add);
  s += char('a' + file_of(m.to()));
  s += std::to_string(rank_of(m.to()) + add);
  return s;
}

Move UciEnginePlayer::from_engine(const std::string& text) const {
  const std::string t = to_lower(text);
  const int add = ranks_from_one() ? 1 : 0;
  size_t i = 0;
  Square sq[2];
  for (int k = 0; k < 2; ++k) {
    if (i >= t.size() || t[i] < 'a' || t[i] > 'i') return Move();
    const int file = t[i++] - 'a';
    if (i >= t.size() || !std::isdigit(static_cast<unsigned char>(t[i]))) return Move();
    int rank = t[i++] - '0';
    if (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) rank = rank * 10 + (t[i++] - '0');
    rank -= add;
    if (rank < 0 || rank > 9) return Move();
    sq[k] = make_square(file, rank);
  }
  if (i != t.size() || sq[0] == sq[1]) return Move();
  return Move(sq[0], sq[1]);
}

std::string UciEnginePlayer::ensure_started() {
  if (running()) return "";
  kill_engine();
  proc_ = std::make_unique<ChildProcess>();
  std::string error;
  if (!proc_->start(options_.command, options_.pass_stderr, error)) {
    proc_.reset();
    return "engine did not start: " + error;
  }
  const std::string failure = handshake();
  if (failure.empty()) return "";
  const std::string reason = proc_->exit_reason();
  kill_engine();
  return failure + (reason.empty() ? "" : " (" + reason + ")");
}

// uci ... uciok (reading the name and the variant option), the variant and the options,
// isready ... readyok. "" on success, else why.
std::string UciEnginePlayer::handshake() {
  variant_selected_ = false;
  if (!proc_->write_line("uci")) return "engine did not start: it does not read its input";
  const auto deadline = Clock::now() + std::chrono::milliseconds(options_.start_timeout_ms);
  std::string line;
  bool offers_variant = false;
  for (;;) {
    const ChildProcess::Read r = proc_->read_line(line, deadline);
    if (r == ChildProcess::Read::TIMEOUT) return "engine did not start: no uciok";
    if (r == ChildProcess::Read::CLOSED) return "engine did not start: it closed its output before uciok";
    if (line.rfind("id name ", 0) == 0) id_name_ = line.substr(8);
    if (options_.detect_variant && offers_xiangqi_variant(line)) offers_variant = true;
    if (line == "uciok") break;
  }
  if (offers_variant) {
    if (!proc_->write_line("setoption name UCI_Variant value xiangqi")) return "engine exited during setup";
    variant_selected_ = true;
  }
  for (const auto& [name, value] : options_.options)
    if (!proc_->write_line("setoption name " + name + " value " + value)) return "engine exited during setup";
  if (!proc_->write_line("isready")) return "engine exited during setup";
  const auto ready_deadline = Clock::now() + std::chrono::milliseconds(options_.start_timeout_ms);
  for (;;) {
    const ChildProcess::Read r = proc_->read_line(line, ready_deadline);
    if (r == ChildProcess::Read::TIMEOUT) return "engine did not start: no readyok";
    if (r == ChildProcess::Read::CLOSED) return "engine did not start: it closed its output before readyok";
    if (line == "readyok") return "";
  }
}

void UciEnginePlayer::new_game(const Game&) {
  if (!running()) return;  // started (or restarted) at the first move
  std::string line;
  if (!proc_->write_line("ucinewgame") || !proc_->write_line("isready")) {
    kill_engine();
    return;
  }
  const auto deadline = Clock::now() + std::chrono::milliseconds(options_.start_timeout_ms);
  for (;;) {
    const ChildProcess::Read r = proc_->read_line(line, deadline);
    if (r != ChildProcess::Read::LINE) {
      kill_engine();  // restarted at the first move
      return;
    }
    if (line == "readyok") return;
  }
}

PlayerMove UciEnginePlayer::choose(const Game& game, const MoveLimits& limits) {
  PlayerMove out;
  const std::string started = ensure_started();
  if (!started.empty()) {
    out.failure = started;
    return out;
  }
  std::string position = "position fen " + game.start_position().fen();
  if (game.ply() > 0) {
    position += " moves";
    for (const Move m : game.moves()) position += " " + to_engine(m);
  }
  const int64_t wait_ms = reply_wait_ms(limits, options_);
  if (!proc_->write_line(position) || !proc_->write_line(uci_go_command(limits))) {
    // A write fails when the engine's input has closed, usually because it is exiting: give it
    // the same second to be reaped as a closed output gets below, so the reason names how it ended.
    const std::string reason = proc_->exit_reason_within(1000);
    kill_engine();
    out.failure = reason.empty() ? "engine exited" : reason;
    return out;
  }
  const auto deadline = Clock::now() + std::chrono::milliseconds(wait_ms);
  std::string line;
  for (;;) {
    const ChildProcess::Read r = proc_->read_line(line, deadline);
    if (r == ChildProcess::Read::TIMEOUT) {
      kill_engine();
      out.failure = "no reply within " + std::to_string(wait_ms) + " ms";
      return out;
    }
    if (r == ChildProcess::Read::CLOSED) {
      std::string reason = proc_->exit_reason_within(1000);
      kill_engine();
      out.failure = reason.empty() ? "engine closed its output" : reason;
      return out;
    }
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word == "info") {
      // Remember the last reported node count for the record.
      std::string w;
      while (words >> w)
        if (w == "nodes") {
          long long n = 0;
          if (words >> n) out.visits = uint32_t(std::min<long long>(std::max(0LL, n), UINT32_MAX));
        }
      continue;
    }
    if (word != "bestmove") continue;
    std::string text;
    words >> text;
    out.text = text;
    if (text.empty() || text == "(none)" || text == "0000") {
      out.failure = "bestmove '" + text + "' in a position with legal moves";
      return out;
    }
    out.move = from_engine(text);
    if (out.move.is_none()) out.failure = "malformed move '" + text + "'";
    return out;
  }
}

}  // namespace xq::selfplay
