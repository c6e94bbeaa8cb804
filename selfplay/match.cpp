#include "selfplay/match.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/errors.h"
#include "core/input_file.h"
#include "core/move_parse.h"
#include "core/movegen.h"
#include "core/notation_wxf.h"

namespace xq::selfplay {

namespace {

bool looks_like_iccs(const std::string& t) {
  return t.size() == 4 && t[0] >= 'a' && t[0] <= 'i' && t[1] >= '0' && t[1] <= '9' && t[2] >= 'a' && t[2] <= 'i' &&
         t[3] >= '0' && t[3] <= '9';
}

std::string join(const std::vector<std::string>& words, size_t from, size_t to) {
  std::string s;
  for (size_t i = from; i < to; ++i) s += (i > from ? " " : "") + words[i];
  return s;
}

}  // namespace

std::vector<Opening> parse_openings(const std::string& text, const std::string& name) {
  std::vector<Opening> out;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::istringstream ws(line);
    std::vector<std::string> words;
    for (std::string w; ws >> w;) words.push_back(w);
    if (words.empty() || words[0][0] == '#') continue;
    auto fail = [&](const std::string& why) {
      throw std::invalid_argument(name + " line " + std::to_string(number) + ": " + why);
    };
    Opening o;
    o.source = join(words, 0, words.size());
    size_t i = 0;
    if (words[0] == "startpos") {
      i = 1;
    } else if (looks_like_iccs(words[0])) {
      i = 0;
    } else {
      size_t from = words[0] == "fen" ? 1 : 0;
      i = from;
      while (i < words.size() && words[i] != "moves") ++i;
      if (i == from) fail("missing FEN");
      o.fen = join(words, from, i);
    }
    if (i < words.size() && words[i] == "moves") ++i;
    Game g;
    try {
      g = Game(o.fen);
    } catch (const FenError& e) {
      fail(std::string("bad FEN: ") + e.what());
    }
    for (; i < words.size(); ++i) {
      if (g.over()) fail("the game is over before move '" + clipped(words[i]) + "'");
      try {
        o.moves.push_back(g.play(words[i]));
      } catch (const MoveError& e) {
        fail(e.what());
      }
    }
    if (g.over()) fail("the opening ends the game (" + g.state().to_string() + ")");
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<Opening> load_openings(const std::string& path) {
  constexpr size_t kMaxOpeningsBytes = size_t(16) << 20;  // far more than any book of openings
  std::string text;
  try {
    text = read_file(path, kMaxOpeningsBytes, "openings file");
  } catch (const FileError& e) {
    throw std::invalid_argument(e.what());
  }
  std::vector<Opening> o = parse_openings(text, "openings file '" + path + "'");
  if (o.empty()) throw std::invalid_argument("openings file '" + path + "' has no openings");
  return o;
}

int GameOutcome::a_points() const {
  if (result == Result::DRAW || result == Result::ONGOING) return 1;
  const bool red_won = result == Result::RED_WIN;
  return red_won == a_is_red ? 2 : 0;
}

GameOutcome play_game(Player& red, Player& black, const Opening& opening, const MatchOptions& options) {
  return play_game(red, black, opening, options, options.limits, options.limits);
}

GameOutcome play_game(Player& red, Player& black, const Opening& opening, const MatchOptions& options,
                      const MoveLimits& red_limits, const MoveLimits& black_limits) {
  GameOutcome out;
  out.start_fen = opening.fen;
  Game game(Position::from_fen(opening.fen), options.game);
  for (const Move m : opening.moves) {
    out.wxf.push_back(move_to_wxf(game.position(), m));
    out.moves.push_back(m);
    game.play(m);
  }
  out.opening_plies = int(opening.moves.size());
  red.new_game(game);
  black.new_game(game);
  out.red = red.name();
  out.black = black.name();
  bool forfeit = false;
  while (!game.over()) {
    const Color side = game.side_to_move();
    Player& p = side == RED ? red : black;
    PlayerMove pm;
    try {
      pm = p.choose(game, side == RED ? red_limits : black_limits);
    } catch (const std::exception& e) {
      pm.failure = std::string("error: ") + e.what();
    }
    if (pm.failure.empty()) {
      const std::string why = illegal_reason(game.position(), pm.move);
      if (!why.empty())
        pm.failure = "illegal move " + (pm.text.empty() ? move_to_iccs(pm.move) : pm.text) + " (" + why + ")";
    }
    if (!pm.failure.empty()) {
      forfeit = true;
      out.result = win_for(~side);
      out.termination = "forfeit";
      out.reason = std::string(color_name(side)) + " (" + p.name() + "): " + pm.failure;
      break;
    }
    out.wxf.push_back(move_to_wxf(game.position(), pm.move));
    out.moves.push_back(pm.move);
    out.info.push_back(pm);
    game.play(pm.move);
  }
  if (!forfeit) {
    const GameState st = game.state();
    out.result = st.result;
    out.termination = to_string(st.reason);
  }
  out.red = red.name();  // external engines are named after their "id name" once started
  out.black = black.name();
  return out;
}

MatchResult play_match(Player& a, Player& b, const MatchOptions& options) {
  MatchResult r;
  const int64_t games = std::max<int64_t>(0, options.games);
  std::vector<Opening> openings = options.openings;
  if (openings.empty()) openings.push_back(Opening());
  r.games.resize(size_t(games));
  std::vector<char> played(size_t(games), 0);  // a stop leaves games unplayed
  std::atomic<int64_t> next{0};
  std::mutex mutex;
  std::exception_ptr error;  // the first exception of any game slot, rethrown after the join

  auto worker = [&](Player& pa, Player& pb) {
    for (;;) {
      if (options.stop && options.stop->load()) return;
      const int64_t i = next.fetch_add(1);
      if (i >= games) return;
      try {
        const int opening = int((i / 2) % int64_t(openings.size()));
        const bool a_red = i % 2 == 0;
        const MoveLimits& la = options.limits_of_a();
        const MoveLimits& lb = options.limits_of_b();
        GameOutcome g = a_red ? play_game(pa, pb, openings[size_t(opening)], options, la, lb)
                              : play_game(pb, pa, openings[size_t(opening)], options, lb, la);
        g.index = i;
        g.opening = opening;
        g.a_is_red = a_red;
        std::lock_guard<std::mutex> lock(mutex);
        r.games[size_t(i)] = g;
        played[size_t(i)] = 1;
        if (options.on_game) options.on_game(r.games[size_t(i)]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
        next = games;  // no further games
        return;
      }
    }
  };

  const int slots = int(std::max<int64_t>(1, std::min<int64_t>(options.concurrency, games)));
  if (slots <= 1) {
    worker(a, b);
  } else {
    std::vector<std::unique_ptr<Player>> clones;
    for (int k = 1; k < slots; ++k) {
      clones.push_back(a.clone(options.seed * 1000003u + uint64_t(k)));
      clones.push_back(b.clone(options.seed * 1000033u + uint64_t(k)));
    }
    std::vector<std::thread> threads;
    for (int k = 1; k < slots; ++k)
      threads.emplace_back(worker, std::ref(*clones[size_t(2 * (k - 1))]), std::ref(*clones[size_t(2 * (k - 1) + 1)]));
    worker(a, b);
    for (auto& t : threads) t.join();
  }
  if (error) std::rethrow_exception(error);

  std::vector<GameOutcome> done;
  for (size_t i = 0; i < r.games.size(); ++i)
    if (played[i]) done.push_back(std::move(r.games[i]));
  r.games = std::move(done);
  for (const GameOutcome& g : r.games) {
    const int p = g.a_points();
    if (p == 2)
      ++r.a_wins;
    else if (p == 1)
      ++r.draws;
    else
      ++r.a_losses;
    if (g.termination == "forfeit") {
      const bool red_forfeited = g.result == Result::BLACK_WIN;
      if (red_forfeited == g.a_is_red)
        ++r.forfeits_a;
      else
        ++r.forfeits_b;
    }
  }
  r.a_name = a.name();
  r.b_name = b.name();
  return r;
}

std::string MatchResult::summary() const {
  const EloEstimate e = elo();
  char score[32];
  std::snprintf(score, sizeof score, "%.3f", e.score);
  std::string s = a_name + " vs " + b_name + ": games " + std::to_string(e.games()) + " wins " +
                  std::to_string(a_wins) + " draws " + std::to_string(draws) + " losses " + std::to_string(a_losses) +
                  " score " + score + " elo " + format_elo(e) + " (95%)";
  if (forfeits_a || forfeits_b) s += " forfeits " + std::to_string(forfeits_a) + "/" + std::to_string(forfeits_b);
  return s;
}

std::string format_game(const GameOutcome& g) {
  std::ostringstream os;
  os << "[Game \"" << g.index + 1 << "\"]\n";
  os << "[Red \"" << g.red << "\"]\n";
  os << "[Black \"" << g.black << "\"]\n";
  os << "[Result \"" << to_string(g.result) << "\"]\n";
  os << "[Termination \"" << g.termination << "\"]\n";
  if (!g.reason.empty()) os << "[Reason \"" << g.reason << "\"]\n";
  os << "[FEN \"" << g.start_fen << "\"]\n";
  if (g.opening_plies > 0) os << "[OpeningPlies \"" << g.opening_plies << "\"]\n";
  os << "[Plies \"" << g.moves.size() << "\"]\n";
  const Position start = Position::from_fen(g.start_fen);
  const bool black_first = start.side_to_move() == BLACK;
  int number = 1;
  std::string line;
  for (size_t i = 0; i < g.moves.size(); ++i) {
    const bool red_move = (i % 2 == 0) != black_first;
    if (red_move || i == 0) {
      if (!line.empty()) os << line << "\n";
      line = std::to_string(number) + "." + (red_move ? "" : " ...");
    }
    line += " " + g.wxf[i] + " (" + move_to_iccs(g.moves[i]) + ")";
    if (!red_move) ++number;
  }
  if (!line.empty()) os << line << "\n";
  os << to_string(g.result) << "\n";
  return os.str();
}

xqzero::GameRecord to_game_record(const GameOutcome& g) {
  xqzero::GameRecord rec;
  rec.set_start_fen(g.start_fen);
  const size_t first_played = size_t(g.opening_plies);
  for (size_t i = 0; i < g.moves.size(); ++i) {
    xqzero::MoveRecord* m = rec.add_moves();
    m->set_move(move_to_iccs(g.moves[i]));
    m->set_training_target(false);
    if (i >= first_played && i - first_played < g.info.size()) {
      const PlayerMove& pm = g.info[i - first_played];
      if (pm.has_value) m->set_root_value(pm.value);
      if (pm.visits) m->set_visits(pm.visits);
    }
  }
  rec.set_result(to_string(g.result));
  // The record's termination names are the core's; a forfeit is recorded as a resignation
  // (the text record keeps the reason).
  rec.set_termination(g.termination == "forfeit" ? to_string(Termination::RESIGNATION) : g.termination);
  rec.set_network(g.red + " vs " + g.black);
  rec.set_finished_unix_ms(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  rec.set_seed(uint64_t(g.index));
  return rec;
}

}  // namespace xq::selfplay
