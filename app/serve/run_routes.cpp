// The dashboard's routes (docs/serve.md): /api/runs and each run's metrics, checkpoints and
// games. A run is named by its served name only; files inside it go through resolve_inside.
#include <httplib.h>

#include "app/serve/http_json.h"
#include "app/serve/request_error.h"
#include "app/serve/run_api.h"
#include "app/serve/server.h"

namespace xq::app::serve {

using json = nlohmann::json;
using httplib::Request;

void ServeApp::add_run_routes() {
  httplib::Server& http = *http_;
  http.Get("/api/runs", json_handler([this](const Request&) {
             json list = json::array();
             for (const RunDir& r : runs_.runs()) list.push_back(json{{"name", r.name}, {"path", r.root.string()}});
             return json{{"runs", list}};
           }));
  http.Get("/api/runs/([^/]+)/metrics", json_handler([this](const Request& req) {
             const RunDir& run = runs_.find(req.matches[1]);
             const long long from = int_param(req, "from", 0, 0, 1LL << 40);
             const long long max = int_param(req, "max", 20000, 1, 100000);
             json j = read_metrics(run, from, size_t(max));
             j["run"] = run.name;
             return j;
           }));
  http.Get("/api/runs/([^/]+)/checkpoints", json_handler([this](const Request& req) {
             const RunDir& run = runs_.find(req.matches[1]);
             json j = list_checkpoints(run);
             j["run"] = run.name;
             return j;
           }));
  http.Get("/api/runs/([^/]+)/games", json_handler([this](const Request& req) {
             const RunDir& run = runs_.find(req.matches[1]);
             json j = req.has_param("file") ? read_games(run, req.get_param_value("file"),
                                                         size_t(int_param(req, "limit", 200, 1, 100000)))
                                            : list_record_files(run, size_t(int_param(req, "limit", 30, 1, 100000)));
             j["run"] = run.name;
             return j;
           }));
  // Any other path under a run: refused by name, so a traversal attempt gets a JSON 404.
  http.Get("/api/runs/(.*)", json_handler([](const Request& req) -> json {
             throw RequestError(404, "",
                                "no such run route: " + req.path + " (a run has /metrics, /checkpoints and /games)");
           }));
}

}  // namespace xq::app::serve
