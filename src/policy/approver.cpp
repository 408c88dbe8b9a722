#include "harness/policy/approver.hpp"

namespace harness::policy {

std::string_view to_string(approval_outcome outcome) {
  switch (outcome) {
    case approval_outcome::approved:
      return "approved";
    case approval_outcome::denied:
      return "denied";
    case approval_outcome::timed_out:
      return "timed_out";
    case approval_outcome::cancelled:
      return "cancelled";
  }
  return "denied";
}

}  // namespace harness::policy
