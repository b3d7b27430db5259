// The rules page: the shipped rules text in the page's language, marked for the preset (and
// flags) in play.
import { api, clear, h, main, setRulesLink } from "./dom.js";
import { _, language } from "./i18n.js";

export async function showRules(spec) {
  document.title = _("Piepmatz — rules ({rules})", { rules: spec });
  setRulesLink(spec);
  const rules = await api("GET", `/api/rules?spec=${encodeURIComponent(spec)}&lang=${language()}`);
  const body = h("article", { class: "rules panel", lang: rules.lang });
  // The server's HTML is made from the rules text shipped in the package (no user data in it).
  body.innerHTML = rules.html;
  clear(main()).append(h("p", {}, _("Other rule set:"), " ",
    h("a", { href: "/rules?rules=standard" }, "standard"), " · ", h("a", { href: "/rules?rules=overview" }, "overview")), body);
}
