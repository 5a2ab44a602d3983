// shoot.mjs renders tiergate PR comments (the Markdown of `bot review`) the way GitHub shows
// them, and screenshots each page in headless Chromium.
//
//   node shoot.mjs [--open] OUTDIR NAME=COMMENT.md [NAME=COMMENT.md ...]
//
// Writes OUTDIR/NAME.html and OUTDIR/NAME.png (1000 px wide, full page) as a reviewer first
// sees the comment; with --open also OUTDIR/NAME-open.png with every <details> expanded. Markdown: markdown-it
// with GitHub's comment behaviour (raw HTML such as <details>, tables, strikethrough, links,
// a newline is a line break); ```mermaid blocks are drawn by Mermaid in the page; styling is
// github-markdown-css. The browser is the system Chromium (CHROMIUM, default /usr/bin/chromium);
// every request other than file:// is refused, so nothing is downloaded.
import { mkdir, readFile, writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import MarkdownIt from "markdown-it";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const mermaidJS = require.resolve("mermaid/dist/mermaid.min.js");
const markdownCSS = require.resolve("github-markdown-css/github-markdown-light.css");

const md = new MarkdownIt({ html: true, linkify: true, breaks: true });
const defaultFence = md.renderer.rules.fence;
md.renderer.rules.fence = (tokens, idx, opts, env, self) => {
  const t = tokens[idx];
  if (t.info.trim() === "mermaid") {
    return `<pre class="mermaid">${md.utils.escapeHtml(t.content)}</pre>\n`;
  }
  return defaultFence(tokens, idx, opts, env, self);
};

function page(name, body) {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${md.utils.escapeHtml(name)}</title>
<link rel="stylesheet" href="${pathToFileURL(markdownCSS)}">
<style>
  body { margin: 0; padding: 16px; background: #fff; font-family: -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
  .comment { border: 1px solid #d0d7de; border-radius: 6px; }
  .comment-head { background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 8px 16px; font-size: 14px; color: #59636e; border-radius: 6px 6px 0 0; }
  .comment-head b { color: #1f2328; }
  .markdown-body { padding: 16px; font-size: 14px; }
  pre.mermaid { background: transparent; }
</style></head>
<body><div class="comment">
<div class="comment-head"><b>tiergate</b> <span>bot</span> commented · ${md.utils.escapeHtml(name)}</div>
<div class="markdown-body">
${body}
</div></div>
<script src="${pathToFileURL(mermaidJS)}"></script>
<script>
  mermaid.initialize({ startOnLoad: false, theme: "default", securityLevel: "strict" });
  mermaid.run({ querySelector: "pre.mermaid" })
    .then(() => { window.mermaidDone = "ok"; })
    .catch((e) => { window.mermaidDone = "error: " + e; });
</script>
</body></html>
`;
}

async function main() {
  const args = process.argv.slice(2);
  const open = args[0] === "--open";
  const [outDir, ...pairs] = open ? args.slice(1) : args;
  if (!outDir || pairs.length === 0 || pairs.some((p) => !p.includes("="))) {
    console.error("usage: node shoot.mjs [--open] OUTDIR NAME=COMMENT.md [NAME=COMMENT.md ...]");
    process.exit(2);
  }
  await mkdir(outDir, { recursive: true });
  const profile = await mkdtemp(join(tmpdir(), "tiergate-shots-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1000, height: 800 },
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  let failed = false;
  try {
    for (const pair of pairs) {
      const [name, file] = pair.split(/=(.*)/s);
      const html = page(name, md.render(await readFile(file, "utf8")));
      const htmlPath = resolve(outDir, `${name}.html`);
      await writeFile(htmlPath, html);
      const p = await browser.newPage();
      await p.route("**/*", (route) =>
        route.request().url().startsWith("file://") ? route.continue() : route.abort());
      const errors = [];
      p.on("pageerror", (e) => errors.push(String(e)));
      await p.goto(pathToFileURL(htmlPath).href);
      await p.waitForFunction(() => window.mermaidDone !== undefined, null, { timeout: 60000 });
      const state = await p.evaluate(() => window.mermaidDone);
      if (state !== "ok" || errors.length > 0) {
        console.error(`${name}: mermaid ${state}; page errors: ${errors.join("; ")}`);
        failed = true;
      }
      await p.screenshot({ path: resolve(outDir, `${name}.png`), fullPage: true });
      console.log(`${name}: ${resolve(outDir, name)}.png`);
      if (open) {
        await p.evaluate(() => document.querySelectorAll("details").forEach((d) => { d.open = true; }));
        await p.screenshot({ path: resolve(outDir, `${name}-open.png`), fullPage: true });
      }
      await p.close();
    }
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

main();
