// The page's fixed parts (index.html): the main area each view draws into, the 漢字 toggle
// (pieces as Chinese characters: the game's own names, so on by default; letters are the
// option) and the dark toggle (following the system's choice until flipped), which the
// browser remembers. (The sound toggle is sound.js's.)

export const main = document.getElementById("app");

const chineseBox = document.getElementById("chinese");
chineseBox.checked = localStorage.getItem("anqi.chinese") !== "0";

const darkBox = document.getElementById("dark");
const darkStored = localStorage.getItem("anqi.dark");
darkBox.checked = darkStored === null ? matchMedia("(prefers-color-scheme: dark)").matches : darkStored === "1";
const theme = () => { document.documentElement.dataset.theme = darkBox.checked ? "dark" : "light"; };
theme();
darkBox.addEventListener("change", () => { localStorage.setItem("anqi.dark", darkBox.checked ? "1" : "0"); theme(); });

// Whether pieces are drawn as Chinese characters.
export function chinese() {
  return chineseBox.checked;
}

// Calls `changed` whenever the toggle is flipped (after remembering it).
export function onChineseChange(changed) {
  chineseBox.addEventListener("change", () => {
    localStorage.setItem("anqi.chinese", chineseBox.checked ? "1" : "0");
    changed();
  });
}
