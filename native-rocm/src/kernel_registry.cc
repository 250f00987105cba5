// kernel_registry.cc: the table the kernel files register into (a function-local static, so registrations from
// any file's static initialisers find it constructed).
#include "kernel_registry.h"

namespace tandem {
namespace {

std::vector<OpDef>& table() {
  static std::vector<OpDef> defs;
  return defs;
}

}  // namespace

void RegisterOp(OpDef def) { table().push_back(std::move(def)); }

const OpDef* FindOp(const std::string& name) {
  for (const OpDef& def : table()) {
    if (name == def.name) return &def;
  }
  return nullptr;
}

const std::vector<OpDef>& AllOps() { return table(); }

}  // namespace tandem
