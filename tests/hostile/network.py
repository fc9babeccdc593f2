"""Tries the network at import and in a function: TCP and UDP to a loopback listener of the test."""
import socket

PORT = int("@@PORT@@")


def _probe():
    results = []
    try:
        with socket.create_connection(("127.0.0.1", PORT), timeout=2) as conn:
            conn.sendall(b"hello from the sandbox")
            results.append("tcp connected")
    except OSError as error:
        results.append(f"tcp {error}")
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.sendto(b"hello", ("127.0.0.1", PORT))
            results.append("udp sent")
    except OSError as error:
        results.append(f"udp {error}")
    return "; ".join(results)


print("import:", _probe())


def attention_scores(q, k):
    raise ConnectionError(_probe())
