/**
 * The types of `vendor/cytoscape.js`: the build copies Cytoscape's own ES module build there
 * (scripts/build-dashboard.js), so the browser loads it from this origin like the app's modules.
 */
import cytoscape from 'cytoscape';
export default cytoscape;
