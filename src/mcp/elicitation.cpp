#include "elicitation.hpp"

#include "harness/mcp/errors.hpp"

namespace harness::mcp {

using json = nlohmann::json;

result<json> elicitation_without_anyone(const json& params) {
  if (!params.is_object() || !params.contains("requestedSchema") || !params["requestedSchema"].is_object()) {
    return make_error(mcp::errc::bad_response, "elicitation/create needs params with a requestedSchema object");
  }
  const json& schema = params["requestedSchema"];
  const json& properties = schema.value("properties", json::object());
  json content = json::object();
  if (properties.is_object()) {
    for (const auto& [name, property] : properties.items()) {
      if (property.is_object() && property.contains("default")) content[name] = property["default"];
    }
  }
  const json& required = schema.value("required", json::array());
  if (required.is_array()) {
    for (const auto& name : required) {
      if (!name.is_string() || !content.contains(name.get<std::string>())) return json{{"action", "decline"}};
    }
  }
  return json{{"action", "accept"}, {"content", std::move(content)}};
}

}  // namespace harness::mcp
