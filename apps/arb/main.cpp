// arb: the command-line client of an arbroker node (docs/cli.md).

#include <ctime>
#include <iostream>

#include "cli.hpp"

int main(int argc, char** argv) {
  return arbroker::cli::run(argc, argv, std::cout, std::cerr,
                            [] { return static_cast<arbroker::timestamp>(std::time(nullptr)); });
}
