// The rules page: the shipped rules text, marked for the preset (and flags) in play.
import { api, clear, h, main, setRulesLink } from "./dom.js";

export async function showRules(spec) {
  document.title = `Piepmatz — rules (${spec})`;
  setRulesLink(spec);
  const rules = await api("GET", `/api/rules?spec=${encodeURIComponent(spec)}`);
  const body = h("article", { class: "rules panel" });
  // The server's HTML is made from the rules text shipped in the package (no user data in it).
  body.innerHTML = rules.html;
  clear(main()).append(h("p", {}, "Other rule set: ",
    h("a", { href: "/rules?rules=standard" }, "standard"), " · ", h("a", { href: "/rules?rules=overview" }, "overview")), body);
}
