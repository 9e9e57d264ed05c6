// The page's sounds, made by the browser (Web Audio: no sound files to fetch): a flip, a
// capture, your turn, low time on your clock, and a game's end. On by default (a browser plays
// nothing before the person has clicked or typed on the page); muted by the header's toggle,
// which the browser remembers.
//
// Each sound played is counted on the page (document.body.dataset.sounds, as JSON: {"flip":
// 3, ...}), so that tests can tell what a person would have heard.

const box = document.getElementById("sound");
const stored = localStorage.getItem("anqi.sound");
box.checked = stored === null ? true : stored === "1";
box.addEventListener("change", () => localStorage.setItem("anqi.sound", box.checked ? "1" : "0"));

// Each sound: notes of [frequency Hz, start s, length s], and a wave shape.
const SOUNDS = {
  flip: { wave: "triangle", notes: [[660, 0, 0.07]] },
  move: { wave: "triangle", notes: [[440, 0, 0.06]] },
  capture: { wave: "square", notes: [[220, 0, 0.09], [165, 0.07, 0.12]] },
  turn: { wave: "sine", notes: [[523, 0, 0.1], [784, 0.1, 0.14]] },
  "low-time": { wave: "sine", notes: [[880, 0, 0.08], [880, 0.16, 0.08]] },
  end: { wave: "sine", notes: [[392, 0, 0.15], [523, 0.15, 0.15], [659, 0.3, 0.25]] },
};

let audio = null;

// Plays `name` unless muted.
export function play(name) {
  const sound = SOUNDS[name];
  if (!sound || !box.checked) return;
  const heard = JSON.parse(document.body.dataset.sounds || "{}");
  heard[name] = (heard[name] || 0) + 1;
  document.body.dataset.sounds = JSON.stringify(heard);
  try {
    audio = audio || new AudioContext();
    // Made before the person clicked or typed on the page, a context starts suspended: it
    // plays once they have (the browser's rule), not before.
    if (audio.state === "suspended") audio.resume();
    const now = audio.currentTime;
    for (const [f, at, len] of sound.notes) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = sound.wave;
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.12, now + at);
      gain.gain.exponentialRampToValueAtTime(0.001, now + at + len);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + at);
      osc.stop(now + at + len + 0.02);
    }
  } catch (e) { /* no audio here: the page works as before */ }
}

// The sound of a ply: a capture, a flip, or a move.
export function plySound(ply) {
  return ply.captured ? "capture" : /^\(rev /.test(ply.action) ? "flip" : "move";
}
