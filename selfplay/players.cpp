#include "selfplay/players.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "core/movegen.h"
#include "selfplay/search_driver.h"

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
int64_t limit_value(const std::string& item, const std::string& text, const std::string& key,
                    const std::string& value, int64_t hi) {
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
  DriveLimits drive;
  if (limits.movetime_ms > 0) drive.deadline = Clock::now() + std::chrono::milliseconds(limits.movetime_ms);
  try {
    drive_search(search_, g, *evaluator_, options_.leaves_per_batch, drive);
  } catch (const std::exception& e) {
    search_.reset();  // the tree is consistent (cancel_pending), but this game is forfeited
    PlayerMove out;
    out.failure = std::string("evaluator error: ") + e.what();
    return out;
  }
  const SearchResult r = search_.result();
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

// ---------------------------------------------------------------------------------------------
// External UCI engine

namespace {

void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, nullptr);
  });
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Whether a line of the engine's `uci` reply offers UCI_Variant as a combo with a xiangqi
// choice: "option name UCI_Variant type combo default chess var ... var xiangqi ...".
bool offers_xiangqi_variant(const std::string& line) {
  std::istringstream in(line);
  std::string word, name;
  if (!(in >> word) || word != "option" || !(in >> word) || word != "name") return false;
  while (in >> word && word != "type") name += (name.empty() ? "" : " ") + word;
  if (lower(name) != "uci_variant" || !(in >> word) || word != "combo") return false;
  bool after_var = false;
  while (in >> word) {
    if (after_var && lower(word) == "xiangqi") return true;
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

struct UciEnginePlayer::Process {
  pid_t pid = -1;
  int in_fd = -1;   // we write: the engine's stdin
  int out_fd = -1;  // we read: the engine's stdout
  std::string buffer;
  bool eof = false;

  enum class Read { LINE, TIMEOUT, CLOSED };

  ~Process() { kill_now(); }

  bool start(const std::string& command, bool pass_stderr, std::string& error) {
    ignore_sigpipe();
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0) {
      error = std::string("pipe: ") + std::strerror(errno);
      return false;
    }
    if (pipe2(from_child, O_CLOEXEC) != 0) {
      error = std::string("pipe: ") + std::strerror(errno);
      close(to_child[0]);
      close(to_child[1]);
      return false;
    }
    const pid_t child = fork();
    if (child < 0) {
      error = std::string("fork: ") + std::strerror(errno);
      for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) close(fd);
      return false;
    }
    if (child == 0) {
      // Only async-signal-safe calls from here to exec.
      setpgid(0, 0);
      struct sigaction sa;
      std::memset(&sa, 0, sizeof sa);
      sa.sa_handler = SIG_DFL;
      sigaction(SIGPIPE, &sa, nullptr);
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      if (!pass_stderr) {
        const int null_fd = open("/dev/null", O_WRONLY);
        if (null_fd >= 0) dup2(null_fd, 2);
      }
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    setpgid(child, child);  // also done by the child; whichever runs first wins
    close(to_child[0]);
    close(from_child[1]);
    pid = child;
    in_fd = to_child[1];
    out_fd = from_child[0];
    fcntl(out_fd, F_SETFL, fcntl(out_fd, F_GETFL) | O_NONBLOCK);
    buffer.clear();
    eof = false;
    return true;
  }

  bool write_line(const std::string& line) {
    if (in_fd < 0) return false;
    const std::string data = line + "\n";
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::write(in_fd, data.data() + done, data.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return false;  // EPIPE: the engine has gone
      }
      done += size_t(n);
    }
    return true;
  }

  Read read_line(std::string& line, Clock::time_point deadline) {
    for (;;) {
      const size_t nl = buffer.find('\n');
      if (nl != std::string::npos) {
        line = buffer.substr(0, nl);
        buffer.erase(0, nl + 1);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        return Read::LINE;
      }
      if (eof || out_fd < 0) return Read::CLOSED;
      const auto now = Clock::now();
      if (now >= deadline) return Read::TIMEOUT;
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
      struct pollfd p;
      p.fd = out_fd;
      p.events = POLLIN;
      p.revents = 0;
      const int r = poll(&p, 1, int(std::min<int64_t>(ms, 1000)));
      if (r < 0 && errno != EINTR) return Read::CLOSED;
      if (r <= 0) continue;
      char chunk[4096];
      const ssize_t n = ::read(out_fd, chunk, sizeof chunk);
      if (n > 0) {
        buffer.append(chunk, size_t(n));
        if (buffer.size() > (1u << 20)) buffer.erase(0, buffer.size() - (1u << 20));  // runaway output
      } else if (n == 0) {
        eof = true;
      } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        eof = true;
      }
    }
  }

  // How the engine ended, once it has (reaps it); "" while it runs.
  std::string exit_reason() {
    if (pid <= 0) return "not running";
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r != pid) return "";
    pid = -1;
    if (WIFSIGNALED(status)) return "engine crashed (signal " + std::to_string(WTERMSIG(status)) + ")";
    return "engine exited (status " + std::to_string(WEXITSTATUS(status)) + ")";
  }

  void close_fds() {
    if (in_fd >= 0) close(in_fd);
    if (out_fd >= 0) close(out_fd);
    in_fd = out_fd = -1;
  }

  // Kills the engine's process group and reaps the engine.
  void kill_now() {
    close_fds();
    if (pid > 0) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      pid = -1;
    }
  }

  // Asks the engine to quit, gives it `wait_ms`, then kills what is left of its group.
  void quit(int wait_ms) {
    if (pid <= 0) {
      close_fds();
      return;
    }
    write_line("quit");
    const auto deadline = Clock::now() + std::chrono::milliseconds(wait_ms);
    for (;;) {
      siginfo_t info;
      std::memset(&info, 0, sizeof info);
      // WNOWAIT keeps the zombie, so the process group id stays ours until the kill below.
      if (waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) break;
      if (Clock::now() >= deadline) break;
      usleep(2000);
    }
    kill_now();
  }
};

UciEnginePlayer::UciEnginePlayer(const UciEngineOptions& options) : options_(options) {}

UciEnginePlayer::~UciEnginePlayer() {
  if (proc_) proc_->quit(500);
}

std::string UciEnginePlayer::name() const {
  if (!options_.name.empty()) return options_.name;
  if (!id_name_.empty()) return "uci:" + id_name_;
  return "uci:" + options_.command;
}

bool UciEnginePlayer::running() const { return proc_ && proc_->pid > 0 && !proc_->eof; }

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
  const std::string t = lower(text);
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
  proc_ = std::make_unique<Process>();
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
    const Process::Read r = proc_->read_line(line, deadline);
    if (r == Process::Read::TIMEOUT) return "engine did not start: no uciok";
    if (r == Process::Read::CLOSED) return "engine did not start: it closed its output before uciok";
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
    const Process::Read r = proc_->read_line(line, ready_deadline);
    if (r == Process::Read::TIMEOUT) return "engine did not start: no readyok";
    if (r == Process::Read::CLOSED) return "engine did not start: it closed its output before readyok";
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
    const Process::Read r = proc_->read_line(line, deadline);
    if (r != Process::Read::LINE) {
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
    const std::string reason = proc_->exit_reason();
    kill_engine();
    out.failure = reason.empty() ? "engine exited" : reason;
    return out;
  }
  const auto deadline = Clock::now() + std::chrono::milliseconds(wait_ms);
  std::string line;
  for (;;) {
    const Process::Read r = proc_->read_line(line, deadline);
    if (r == Process::Read::TIMEOUT) {
      kill_engine();
      out.failure = "no reply within " + std::to_string(wait_ms) + " ms";
      return out;
    }
    if (r == Process::Read::CLOSED) {
      usleep(1000);
      std::string reason = proc_->exit_reason();
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
