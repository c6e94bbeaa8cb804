// Analyses for the web page over the analysis engine (app/analyse/analysis_engine.h): the same
// queries, searches and batching evaluator as `xqzero analyse`, with polling instead of a
// stream. start() queues a query and returns its id; poll() returns the newest response of each
// of its analysed plies (intermediate ones while a search runs) and whether all are final;
// stop() ends it early, answered with what the search has.
//
// A client that goes away is noticed by its silence: an analysis not polled for
// `abandon_after_s` is stopped, and finished analyses not polled for `forget_after_s` are
// dropped. At most `max_running` analyses may be unfinished at once (the next start is a 503),
// each position's maxVisits is at most `max_visits`, and maxVisits times the analysed plies at
// most `max_query_visits` (else a 400). Finished analyses are kept for polling, up to 512 of
// them and `max_kept_plies` analysed plies in all (the least recently polled are dropped
// first), so a client that starts game analyses and never polls them cannot fill the memory.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <thread>

#include "app/analyse/analysis_engine.h"
#include "app/analyse/query.h"
#include "nn/evaluator.h"

namespace xq::app::serve {

class AnalysisService {
 public:
  struct Limits {
    int max_visits = 200000;
    int64_t max_query_visits = 20000000;  // over all of one query's plies
    size_t max_kept_plies = 8192;         // analysed plies of the analyses kept, all together
    int max_running = 32;
    double report_every_s = 0.25;  // intermediate responses of a query that does not say
    double abandon_after_s = 15;
    double forget_after_s = 120;
  };

  AnalysisService(std::shared_ptr<nn::Evaluator> evaluator, analyse::QueryDefaults defaults,
                  analyse::AnalysisEngine::Options options, Limits limits);
  ~AnalysisService();

  // `body`: the analysis protocol's query fields (docs/serve.md lists those accepted). Returns
  // the new analysis's id; throws RequestError naming the field at fault.
  std::string start(const nlohmann::json& body);
  // {"id", "done", "plies": [ply...], "responses": {"<ply>": response...}}; nullopt for an
  // unknown (or forgotten) id.
  std::optional<nlohmann::json> poll(const std::string& id);
  // False for an unknown id.
  bool stop(const std::string& id);
  // Unfinished analyses.
  int running();

 private:
  using Clock = std::chrono::steady_clock;
  struct Session {
    std::set<int> plies, final_plies;
    std::map<int, nlohmann::json> latest;
    Clock::time_point last_seen;
    bool done() const { return final_plies.size() == plies.size(); }
  };
  // Receives the engine's output a line at a time.
  class LineSink : public std::streambuf {
   public:
    explicit LineSink(AnalysisService& owner) : owner_(owner) {}

   protected:
    int overflow(int ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;

   private:
    AnalysisService& owner_;
    std::string line_;
  };

  void deliver(const std::string& line);
  void reap_loop();

  Limits limits_;
  analyse::QueryDefaults defaults_;
  LineSink sink_;
  std::ostream out_;
  std::mutex mutex_;  // guards what follows
  std::map<std::string, Session> sessions_;
  uint64_t next_id_ = 1;
  bool stopping_ = false;
  std::condition_variable reap_cv_;
  std::unique_ptr<analyse::AnalysisEngine> engine_;  // after out_: it writes to it
  std::thread reaper_;
};

}  // namespace xq::app::serve
