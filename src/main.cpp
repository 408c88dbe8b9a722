#include "harness/app/app.hpp"

int main(int argc, char** argv) {
  return harness::app::run(argc, argv);
}
