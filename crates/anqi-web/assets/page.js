// The page's fixed parts (index.html): the main area each view draws into, and the 漢字 toggle
// (pieces as Chinese characters), which the browser remembers.

export const main = document.getElementById("app");

const chineseBox = document.getElementById("chinese");
chineseBox.checked = localStorage.getItem("anqi.chinese") === "1";

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
