'use strict'

// Charts drawn on the server (the sweeps, find-capacity, the grid, sizing): an ECharts option rendered into an SVG
// document; no DOM or canvas needed.

const WIDTH = 900
const HEIGHT = 500

function renderSvgChart (option, { width = WIDTH, height = HEIGHT } = {}) {
  const echarts = require('echarts')
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height })
  try {
    chart.setOption(option)
    return chart.renderToSVGString()
  } finally {
    chart.dispose()
  }
}

// At the subtitle's 12 px, about 7 px a character: lines longer than the chart is wide are broken at spaces.
const SUBTITLE_CHARS = Math.floor((WIDTH - 60) / 7)
const SUBTITLE_LINE_PX = 16

/** The subtitle's lines, each within the chart's width; a word longer than a line stays whole. */
function wrapLines (text, width = SUBTITLE_CHARS) {
  const lines = []
  for (const paragraph of String(text || '').split('\n')) {
    let line = ''
    for (const word of paragraph.split(' ')) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line)
        line = word
      } else {
        line = line ? `${line} ${word}` : word
      }
    }
    if (line) lines.push(line)
  }
  return lines
}

/** A title with a wrapped subtitle, and where the plot can start below them. */
function titleBlock (text, subtitle) {
  const lines = wrapLines(subtitle)
  return {
    title: {
      text,
      subtext: lines.join('\n'),
      left: 'center',
      itemGap: 8,
      subtextStyle: { lineHeight: SUBTITLE_LINE_PX, fontSize: 12 }
    },
    // 40 for the title, a line for each line of subtitle, 45 for the axis names above the plot.
    top: 40 + lines.length * SUBTITLE_LINE_PX + 45
  }
}

/**
 * A logarithmic axis over the values themselves (not whole decades beyond them): ticks at the powers of ten
 * inside, the ends unlabelled.
 */
function logAxisRange (values) {
  return { min: Math.min(...values) / 1.5, max: Math.max(...values) * 1.5 }
}

module.exports = { renderSvgChart, wrapLines, titleBlock, logAxisRange, WIDTH, HEIGHT }
