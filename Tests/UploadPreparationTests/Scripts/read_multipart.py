"""Parses a multipart/form-data body with Python's own email package (an independent parser) and
prints one JSON line per part: field name, file name, Content-Type, byte count and SHA-256."""
import email.parser
import email.policy
import hashlib
import json
import sys

content_type, path = sys.argv[1], sys.argv[2]
with open(path, "rb") as f:
    body = f.read()
message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
    b"Content-Type: " + content_type.encode() + b"\r\nMIME-Version: 1.0\r\n\r\n" + body)
if not message.is_multipart():
    sys.exit("not a multipart body")
for part in message.iter_parts():
    payload = part.get_payload(decode=True)
    print(json.dumps({
        "name": part.get_param("name", header="content-disposition"),
        "filename": part.get_filename(),
        "content_type": part.get_content_type(),
        "bytes": len(payload),
        "sha256": hashlib.sha256(payload).hexdigest(),
        "text": payload.decode("utf-8") if part.get_content_type() == "application/json" else None,
    }))
if message.defects or any(p.defects for p in message.iter_parts()):
    sys.exit(f"defects: {message.defects}")
