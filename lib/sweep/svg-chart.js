'use strict'

// The sweeps' and find-capacity's charts: an ECharts option rendered on the server into an SVG
// document; no DOM or canvas needed.

const WIDTH = 900
const HEIGHT = 500

function renderSvgChart (option) {
  const echarts = require('echarts')
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT })
  try {
    chart.setOption(option)
    return chart.renderToSVGString()
  } finally {
    chart.dispose()
  }
}

module.exports = { renderSvgChart }
