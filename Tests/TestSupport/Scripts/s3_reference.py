#!/usr/bin/env python3
"""botocore, AWS's own signer, as the tests' independent reference for S3.

  s3_reference.py sign            JSON lines on stdin, each a request to sign; prints one line each:
                                  the Authorization header, or the presigned URL when "presign" is set.
  s3_reference.py mkbucket BUCKET
  s3_reference.py put BUCKET KEY FILE [CONTENT_TYPE]
  s3_reference.py presign BUCKET KEY SECONDS
  s3_reference.py count BUCKET PREFIX    prints how many objects are under PREFIX
The last four talk to the server at S3_ENDPOINT with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
"""
import datetime
import json
import os
import sys
from unittest import mock
from urllib.parse import quote

import botocore.auth
import botocore.awsrequest
import botocore.credentials
import botocore.session
from botocore.config import Config


def sign(request):
    creds = botocore.credentials.Credentials(request["access_key"], request["secret_key"], request.get("token"))
    path = quote(request["key"], safe="/~")
    query = "&".join(quote(k, safe="-_.~") + "=" + quote(v, safe="-_.~") for k, v in request.get("query", []))
    url = request["endpoint"] + "/" + path + ("?" + query if query else "")
    aws = botocore.awsrequest.AWSRequest(method=request["method"], url=url, headers=dict(request.get("headers", [])), data=b"")
    when = datetime.datetime.fromtimestamp(request["epoch"], datetime.timezone.utc).replace(tzinfo=None)
    if request.get("presign"):
        signer = botocore.auth.S3SigV4QueryAuth(creds, "s3", request["region"], expires=request["presign"])
    else:
        signer = botocore.auth.S3SigV4Auth(creds, "s3", request["region"])
    with mock.patch.object(botocore.auth, "get_current_datetime", return_value=when):
        signer.add_auth(aws)
    return aws.url if request.get("presign") else aws.headers["Authorization"]


def client():
    session = botocore.session.get_session()
    return session.create_client(
        "s3", endpoint_url=os.environ["S3_ENDPOINT"], region_name=os.environ.get("AWS_REGION", "us-east-1"),
        aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"], aws_secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
        config=Config(s3={"addressing_style": "path"}, signature_version="s3v4", retries={"max_attempts": 1}))


def main(argv):
    command = argv[1]
    if command == "sign":
        for line in sys.stdin:
            if line.strip():
                print(sign(json.loads(line)), flush=True)
    elif command == "mkbucket":
        client().create_bucket(Bucket=argv[2])
    elif command == "put":
        with open(argv[4], "rb") as f:
            extra = {"ContentType": argv[5]} if len(argv) > 5 else {}
            client().put_object(Bucket=argv[2], Key=argv[3], Body=f.read(), **extra)
    elif command == "presign":
        print(client().generate_presigned_url("get_object", Params={"Bucket": argv[2], "Key": argv[3]}, ExpiresIn=int(argv[4])))
    elif command == "count":
        pages = client().get_paginator("list_objects_v2").paginate(Bucket=argv[2], Prefix=argv[3])
        print(sum(page.get("KeyCount", 0) for page in pages))
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main(sys.argv)
