// Calibration: the camera picture with what was detected drawn over it; click four corners.
"use strict";

(() => {
  const {api, t} = Companion;
  const $ = (id) => document.getElementById(id);
  let corners = [];

  function snapshot() {
    $("snap").src = `/api/camera.jpg?t=${Date.now()}`;
    api("/api/detected").then((d) => { $("detected").textContent = JSON.stringify(d, null, 1); })
      .catch((e) => { $("cal-msg").textContent = e.message; });
  }

  function drawClicks() {
    const svg = $("clicks");
    const img = $("snap");
    svg.setAttribute("viewBox", `0 0 ${img.naturalWidth || 1} ${img.naturalHeight || 1}`);
    svg.replaceChildren();
    const NS = "http://www.w3.org/2000/svg";
    corners.forEach(([x, y], i) => {
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("cx", x); c.setAttribute("cy", y); c.setAttribute("r", 6);
      c.setAttribute("class", "corner");
      const t = document.createElementNS(NS, "text");
      t.setAttribute("x", x + 8); t.setAttribute("y", y - 8); t.textContent = String(i + 1);
      svg.append(c, t);
    });
    $("send-corners").disabled = corners.length !== 4;
  }

  document.addEventListener("DOMContentLoaded", () => {
    const img = $("snap");
    img.addEventListener("load", drawClicks);
    img.addEventListener("error", () => { $("cal-msg").textContent = t("calibrate.no_picture"); });
    img.addEventListener("click", (ev) => {
      if (corners.length >= 4) corners = [];
      const r = img.getBoundingClientRect();
      const sx = img.naturalWidth / r.width, sy = img.naturalHeight / r.height;
      corners.push([Math.round((ev.clientX - r.left) * sx), Math.round((ev.clientY - r.top) * sy)]);
      drawClicks();
    });
    $("refresh").addEventListener("click", snapshot);
    $("reset-corners").addEventListener("click", () => { corners = []; drawClicks(); });
    $("send-corners").addEventListener("click", async () => {
      try {
        await api("/api/calibrate", {corners});
        $("cal-msg").textContent = t("calibrate.corners_saved");
        corners = [];
        snapshot();
      } catch (e) { $("cal-msg").textContent = e.message; }
    });
    $("colors").addEventListener("click", async () => {
      try {
        const r = await api("/api/calibrate/colors", {});
        $("cal-msg").textContent = `Colours calibrated: ${JSON.stringify(r.result)}`;
      } catch (e) { $("cal-msg").textContent = e.message; }
    });
    document.addEventListener("companion:unlocked", snapshot);
    if (document.body.dataset.admin === "1") snapshot();
  });
})();
