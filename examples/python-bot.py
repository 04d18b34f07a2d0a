#!/usr/bin/env python3
"""A Hearth bot in Python, on the raw protocol (no Hearth SDK): the REST API over urllib and the
Socket.IO gateway with python-socketio (Debian: apt-get install python3-socketio python3-websocket).

/beep registers over REST; when a user runs it, the bot answers the interaction and, when the user
is in a voice channel, joins it and sends a short beep as PCM frames (bot:audio-data).

Run it:  HEARTH_URL=http://localhost:3000 HEARTH_BOT_TOKEN=<bot_token> python3 python-bot.py
"""
import json
import math
import os
import struct
import sys
import threading
import time
import urllib.request

import socketio

URL = os.environ.get("HEARTH_URL", "http://localhost:3000").rstrip("/")
TOKEN = os.environ.get("HEARTH_BOT_TOKEN")

COMMANDS = [{"name": "beep", "description": "Answer, and beep in your voice channel", "options": []}]


def rest(method, path, body=None):
    """One REST call with the bot token; returns the JSON answer, raises on an error status."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(URL + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + TOKEN)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read() or b"null")


def beep_frames(frequency=660, frames=10, sample_rate=48000):
    """20 ms frames of 16-bit mono PCM (little-endian): 960 samples, 1920 bytes each."""
    samples_per_frame = sample_rate // 50
    for f in range(frames):
        yield b"".join(
            struct.pack("<h", int(8000 * math.sin(2 * math.pi * frequency * (f * samples_per_frame + i) / sample_rate)))
            for i in range(samples_per_frame)
        )


def main():
    if not TOKEN:
        sys.exit("Set HEARTH_BOT_TOKEN to the bot_token of your application")

    # 1. Register the slash commands (this replaces the application's global commands).
    rest("POST", "/api/v1/oauth2/commands", COMMANDS)

    # 2. Connect to the gateway; the token goes in the handshake's auth.
    sio = socketio.Client(reconnection=True)

    @sio.on("interaction:create")
    def on_interaction(interaction):
        if interaction["type"] != "slash_command" or interaction["command"] != "beep":
            return
        # Handlers run on the client's thread: answer from another one so acks can arrive.
        threading.Thread(target=answer, args=(sio, interaction), daemon=True).start()

    sio.connect(URL, auth={"token": TOKEN}, transports=["websocket"])
    print("python bot ready", flush=True)
    sio.wait()


def answer(sio, interaction):
    # 3. Where is the user? (bot:voice-query answers {ok, channelId, participant})
    where = sio.call("bot:voice-query", {"userId": interaction["user"]["id"], "serverId": interaction["server_id"]})
    channel_id = where.get("channelId") if where.get("ok") else None
    text = "beep! (join a voice channel to hear it)" if channel_id is None else "beep!"
    ack = sio.call("interaction:response", {"interaction_id": interaction["id"], "channel_id": interaction["channel_id"], "content": text})
    if not ack["ok"]:
        print("interaction:response failed:", ack["error"], flush=True)
    if channel_id is None:
        return
    # 4. Join the voice channel and send the beep: binary PCM (bytes), one frame every 20 ms.
    joined = sio.call("voice:join", {"channelId": channel_id})
    if not joined["ok"]:
        print("voice:join failed:", joined["error"], flush=True)
        return
    start = time.monotonic()
    for n, pcm in enumerate(beep_frames()):
        time.sleep(max(0.0, start + n * 0.02 - time.monotonic()))
        sio.emit("bot:audio-data", {"channelId": channel_id, "pcm": pcm, "sampleRate": 48000, "channels": 1})
    time.sleep(0.1)
    sio.call("voice:leave")


if __name__ == "__main__":
    main()
