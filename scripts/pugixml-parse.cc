// The baseline of scripts/bench-pugixml: a bare DOM parse of one XML file with
// pugixml (Debian's libpugixml-dev), nothing checked. Exit status 0 when the
// file parses, 1 when it does not, 2 on wrong use.
#include <pugixml.hpp>

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  pugi::xml_document doc;
  return doc.load_file(argv[1]) ? 0 : 1;
}
