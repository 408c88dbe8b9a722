"""The call socket (docs/architecture/runtime-protocol.md): a unix socket the
host mounts into the container. After `link`, every frame in both directions
travels on it instead of stdio, because a round trip there costs a fraction
of one through the engine's attach stream. The first line is `hello` with
the token from `link`.

The twin of sandbox/runtime/call_socket.js. Connecting to a unix socket does
not wait on anything remote, so it is done at once, in the thread that read
`link`; if it fails, frames simply stay on stdout (the host gives up on the
socket too, after its own timeout).
"""
import socket
import threading

import runtime_channel as channel


def link(frame, output, on_frame, on_close):
    """Connects to frame['socket'], says hello with frame['token'] and moves
    `output` there; then reads frames from the socket in a thread. Returns
    True when linked."""
    path = frame.get('socket')
    if not isinstance(path, str) or not path:
        return False
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        hello = channel.dumps({'type': 'hello', 'token': str(frame.get('token'))})
        output.switch_to(sock, hello)
    except OSError as err:
        channel.diagnose(f'call socket: {err}; frames stay on stdio')
        sock.close()
        return False
    reader = threading.Thread(
        target=channel.read_frames, args=(sock.makefile('rb'), on_frame, on_close),
        name='call socket reader', daemon=True)
    reader.start()
    return True
