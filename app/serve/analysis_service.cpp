#include "app/serve/analysis_service.h"

#include <algorithm>
#include <vector>

#include "app/serve/request_error.h"
#include "core/errors.h"

namespace xq::app::serve {

using json = nlohmann::json;

namespace {

// The query fields a page may send (the rest of the protocol, e.g. overrideSettings, stays
// with the command-line engine).
const char* const kAccepted[] = {"fen",           "moves",        "maxVisits",
                                 "maxTime",       "analyzePlies", "multiPV",
                                 "includePolicy", "searchMoves",  "reportDuringSearchEvery",
                                 "priority"};

constexpr size_t kMaxKept = 512;

}  // namespace

int AnalysisService::LineSink::overflow(int ch) {
  if (ch == traits_type::eof()) return traits_type::not_eof(ch);
  if (ch == '\n') {
    owner_.deliver(line_);
    line_.clear();
  } else {
    line_ += char(ch);
  }
  return ch;
}

std::streamsize AnalysisService::LineSink::xsputn(const char* s, std::streamsize n) {
  for (std::streamsize i = 0; i < n; ++i) overflow((unsigned char)s[i]);
  return n;
}

AnalysisService::AnalysisService(std::shared_ptr<nn::Evaluator> evaluator, analyse::QueryDefaults defaults,
                                 analyse::AnalysisEngine::Options options, Limits limits)
    : limits_(limits), defaults_(defaults), sink_(*this), out_(&sink_) {
  engine_ = std::make_unique<analyse::AnalysisEngine>(std::move(evaluator), std::move(defaults), options, out_);
  reaper_ = std::thread([this] { reap_loop(); });
}

AnalysisService::~AnalysisService() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  reap_cv_.notify_all();
  reaper_.join();
  engine_->handle(R"({"action":"terminate_all"})");  // queued positions answer at once
  engine_.reset();
}

std::string AnalysisService::start(const json& body) {
  if (!body.is_object()) throw RequestError(400, "", "the body must be a JSON object of query fields");
  for (auto it = body.begin(); it != body.end(); ++it)
    if (std::none_of(std::begin(kAccepted), std::end(kAccepted), [&](const char* k) { return it.key() == k; }))
      throw RequestError(400, clipped(it.key()), "unknown field (docs/serve.md lists the analysis fields)");
  if (body.contains("maxVisits") && body["maxVisits"].is_number() &&
      body["maxVisits"].get<double>() > limits_.max_visits)
    throw RequestError(400, "maxVisits", "at most " + std::to_string(limits_.max_visits) + " on this server");
  json query = body;
  std::string id;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = "a" + std::to_string(next_id_++);
  }
  query["id"] = id;
  if (!query.contains("reportDuringSearchEvery")) query["reportDuringSearchEvery"] = limits_.report_every_s;
  const std::string line = query.dump();
  const analyse::ParsedLine parsed = analyse::parse_line(line, defaults_);
  if (parsed.kind != analyse::LineKind::QUERY) throw RequestError(400, parsed.field, parsed.message);
  const int64_t plies = int64_t(parsed.query.plies.size());
  if (int64_t(parsed.query.max_visits) * plies > limits_.max_query_visits)
    throw RequestError(400, "maxVisits",
                       std::to_string(parsed.query.max_visits) + " visits at each of " + std::to_string(plies) +
                           " plies is more than the " + std::to_string(limits_.max_query_visits) +
                           " one analysis may ask for on this server");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    int unfinished = 0;
    for (const auto& [_, s] : sessions_) unfinished += !s.done();
    if (unfinished >= limits_.max_running)
      throw RequestError(
          503, "",
          "too many analyses running (" + std::to_string(unfinished) + "); stop one or wait for one to finish");
    // Finished analyses kept for polling: at most kMaxKept of them and max_kept_plies plies with
    // this one's, the least recently polled go first.
    size_t kept_plies = parsed.query.plies.size();
    for (const auto& [_, s] : sessions_) kept_plies += s.plies.size();
    while (sessions_.size() >= kMaxKept || (!sessions_.empty() && kept_plies > limits_.max_kept_plies)) {
      auto oldest = sessions_.end();
      for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
        if (it->second.done() && (oldest == sessions_.end() || it->second.last_seen < oldest->second.last_seen))
          oldest = it;
      if (oldest == sessions_.end()) break;
      kept_plies -= oldest->second.plies.size();
      sessions_.erase(oldest);
    }
    Session& s = sessions_[id];
    s.plies.insert(parsed.query.plies.begin(), parsed.query.plies.end());
    s.last_seen = Clock::now();
  }
  engine_->handle(line);  // not under mutex_: its output comes back through deliver()
  return id;
}

void AnalysisService::deliver(const std::string& line) {
  json j = json::parse(line, nullptr, false);
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || !j.contains("ply")) return;  // acks
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = sessions_.find(j["id"].get<std::string>());
  if (it == sessions_.end() || !j["ply"].is_number_integer()) return;
  const int ply = j["ply"].get<int>();
  const bool during = j.value("isDuringSearch", false);
  if (!during) it->second.final_plies.insert(ply);
  it->second.latest[ply] = std::move(j);
}

std::optional<json> AnalysisService::poll(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::nullopt;
  Session& s = it->second;
  s.last_seen = Clock::now();
  json responses = json::object();
  for (const auto& [ply, r] : s.latest) responses[std::to_string(ply)] = r;
  return json{{"id", id}, {"done", s.done()}, {"plies", s.plies}, {"responses", responses}};
}

bool AnalysisService::stop(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!sessions_.count(id)) return false;
  }
  engine_->handle(json{{"action", "terminate"}, {"terminateId", id}}.dump());
  return true;
}

int AnalysisService::running() {
  std::lock_guard<std::mutex> lock(mutex_);
  int n = 0;
  for (const auto& [_, s] : sessions_) n += !s.done();
  return n;
}

void AnalysisService::reap_loop() {
  const auto seconds = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  std::set<std::string> stopped;  // abandoned analyses already told to stop
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    reap_cv_.wait_for(lock, std::chrono::milliseconds(500));
    if (stopping_) break;
    const Clock::time_point now = Clock::now();
    std::vector<std::string> abandon;
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      const Clock::duration idle = now - it->second.last_seen;
      if (it->second.done() && idle > seconds(limits_.forget_after_s)) {
        stopped.erase(it->first);
        it = sessions_.erase(it);
        continue;
      }
      if (!it->second.done() && idle > seconds(limits_.abandon_after_s) && stopped.insert(it->first).second)
        abandon.push_back(it->first);
      ++it;
    }
    lock.unlock();  // the engine's answers come back through deliver(), which locks
    for (const std::string& id : abandon) engine_->handle(json{{"action", "terminate"}, {"terminateId", id}}.dump());
    lock.lock();
  }
}

}  // namespace xq::app::serve
