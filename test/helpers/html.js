'use strict'

const parse5 = require('parse5')

function elements (node, found = []) {
  if (node.tagName) found.push(node)
  for (const child of node.childNodes || []) elements(child, found)
  if (node.content) elements(node.content, found)
  return found
}

/**
 * A page parsed as a browser would: its elements, the charts (class "chart"), and everything that
 * could load something from outside the file (attributes, elements, stylesheets).
 */
function inspectHtml (html) {
  const all = elements(parse5.parse(html))
  const attr = (el, name) => (el.attrs.find((a) => a.name === name) || {}).value
  return {
    all,
    attr,
    charts: all.filter((el) => (attr(el, 'class') || '').split(' ').includes('chart')).map((el) => attr(el, 'id')),
    scripts: all.filter((el) => el.tagName === 'script'),
    // A data: URL is inside the file (the empty icon that spares the browser a request for /favicon.ico).
    external: all.flatMap((el) => el.attrs.filter((a) => ['src', 'href', 'srcset', 'poster',
      'data'].includes(a.name) && !a.value.startsWith('data:')).map((a) => `<${el.tagName} ${a.name}="${a.value}">`)),
    foreignElements: all.filter((el) => ['link', 'img', 'iframe', 'object', 'embed',
      'base'].includes(el.tagName) && !(el.tagName === 'link' && (attr(el,
        'href') || '').startsWith('data:'))).map((el) => el.tagName),
    styles: all.filter((el) => el.tagName === 'style').map((el) => el.childNodes.map((c) => c.value).join(''))
  }
}

/** Nothing in the page loads anything from outside it. */
function referencesOutside (page) {
  return [...page.external, ...page.foreignElements, ...page.styles.filter((css) => /url\(|@import/.test(css))]
}

module.exports = { inspectHtml, referencesOutside }
