// fake_llm_server [--port N] [--script steps.json] [--api-key KEY]
// Serves the fake LLM on 127.0.0.1 until SIGINT/SIGTERM. Prints one line,
// "listening http://127.0.0.1:PORT", once it accepts connections, so a
// parent process can read the port (with --port 0, the OS picks it).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "llm/fake_llm_server.hpp"

int main(int argc, char** argv) {
  unsigned short port = 0;
  std::string script, key;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--port") {
      port = static_cast<unsigned short>(std::atoi(argv[i + 1]));
    } else if (flag == "--script") {
      script = argv[i + 1];
    } else if (flag == "--api-key") {
      key = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: fake_llm_server [--port N] [--script steps.json] [--api-key KEY]\n");
      return 2;
    }
  }
  try {
    harness::testing::fake_llm_server server(port);
    if (!script.empty()) server.push(harness::testing::load_script_file(script));
    if (!key.empty()) server.require_api_key(key);
    std::printf("listening http://127.0.0.1:%u\n", server.port());
    std::fflush(stdout);
    boost::asio::io_context ioc;
    boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([&](auto, int) { ioc.stop(); });
    ioc.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake_llm_server: %s\n", e.what());
    return 1;
  }
  return 0;
}
