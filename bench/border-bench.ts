// border_gap_frames, rendered: 4 bot tabs on loopback (bench/agents.ts), one of which draws
// the world (WebGL on SwiftShader, 640 x 360) at render distance 8 while it walks across
// chunk and region borders like the others. Counted from its first full load (everything
// within render distance - 2 drawn) to the end of the walk: frames with a column missing
// inside render distance - 2 (the app's gapFrames: a column counts as drawn once none of its
// sections waits to be meshed). Fewer bots than the hosting bench: a rendering tab takes a
// core of the machine's 2 by itself.
import { runAgents } from './agents';

export async function benchBorder(): Promise<Record<string, number>> {
  const r = await runAgents({ count: 4, seconds: 30, renderTabs: 1, renderTabRenderDistance: 8, log: () => {} });
  return {
    border_gap_frames: r.render.gap_frames,
    border_frames: r.render.frames,
    border_render_fps: r.render.fps,
    border_crossings: r.render.crossings,
    border_full_load_ms: r.render.full_load_ms.p50,
    border_not_loaded: r.render.not_loaded,
    // Steps the bots skipped because the next column was not loaded yet (they wait rather
    // than walk into a hole, so walking hides part of what a person would see), and how
    // many of the bots joined at all.
    border_waits_for_chunks: r.waits_for_chunks,
    border_bots_joined: r.joined,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchBorder()));
}
