// What the `xqzero serve` tests share: a server in this process on a free loopback port
// (uniform priors, so searches are quick and need no net), a run directory it serves with a
// file and a directory beside it that must stay out of reach, and an HTTP client.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "app/serve/server.h"
#include "nn/evaluator.h"

namespace xq::app::serve::testing {

namespace fs = std::filesystem;
using nlohmann::json;

inline void write_text(const fs::path& p, const std::string& text, bool append = false) {
  std::ofstream out(p, append ? std::ios::app | std::ios::binary : std::ios::trunc | std::ios::binary);
  out << text;
}

class ServeTest : public ::testing::Test {
 protected:
  // Runs before the server starts: tests may change the limits.
  virtual void configure(ServeOptions&) {}

  void SetUp() override {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("xqzero_serve_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    run_ = dir_ / "runA";
    fs::create_directories(run_ / "games");
    fs::create_directories(run_ / "checkpoints");
    fs::create_directories(dir_ / "outside");
    write_text(dir_ / "outside" / "secret.txt", "SECRET-OUTSIDE\n");
    ServeOptions o;
    o.run_dirs = {run_.string()};
    o.limits.max_visits = 1000000;
    o.evaluator = "uniform";
    configure(o);
    analyse::AnalysisEngine::Options engine;
    engine.threads = 2;
    engine.leaves_per_round = 4;
    app_ =
        std::make_unique<ServeApp>(std::make_shared<nn::UniformEvaluator>(), analyse::QueryDefaults(), engine, o, log_);
    port_ = app_->bind("127.0.0.1", 0);
    server_ = std::thread([this] { app_->listen(); });
  }

  void TearDown() override {
    // A request first: the listening loop has started once it is answered (stop() ends it).
    client().Get("/api/info");
    app_->stop();
    server_.join();
    app_.reset();
    fs::remove_all(dir_);
  }

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_url_encode(false);  // paths are sent exactly as the tests write them
    c.set_read_timeout(60);
    return c;
  }

  // GET `path`: the status and the body as JSON (null when it is not JSON).
  std::pair<int, json> get(const std::string& path) const {
    auto r = client().Get(path.c_str());
    if (!r) return {-1, json()};
    return {r->status, json::parse(r->body, nullptr, false)};
  }
  std::pair<int, json> post(const std::string& path, const std::string& body) const {
    auto r = client().Post(path.c_str(), body, "application/json");
    if (!r) return {-1, json()};
    return {r->status, json::parse(r->body, nullptr, false)};
  }

  // Polls an analysis until it is done; its last answer.
  json wait_done(const std::string& id) const {
    json r;
    for (int i = 0; i < 100000; ++i) {
      auto [status, body] = get("/api/analyse/" + id);
      EXPECT_EQ(status, 200) << body.dump();
      if (status != 200 || body["done"] == true) return body;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ADD_FAILURE() << "analysis " << id << " never finished";
    return r;
  }

  fs::path dir_, run_;
  std::ostringstream log_;
  std::unique_ptr<ServeApp> app_;
  int port_ = 0;
  std::thread server_;
};

}  // namespace xq::app::serve::testing
