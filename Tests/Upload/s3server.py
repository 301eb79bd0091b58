#!/usr/bin/env python3
"""Local S3 for the upload-queue tests and benchmarks: moto's server, in-process, on 127.0.0.1.

Usage: python3 s3server.py [--auth] [--bucket NAME ...] [--log FILE] [--ignore-stdin]

Prints ONE JSON line on stdout once the server answers:
  {"port": P, "endpoint": "http://127.0.0.1:P", "access_key": ..., "secret_key": ..., "region": "us-east-1"}
then serves (threaded, several concurrent requests) until SIGTERM/SIGINT or stdin reaches EOF,
so it never outlives a parent that spawned it with a pipe on stdin.
(--ignore-stdin: don't watch stdin, e.g. when started with `&` from a shell, where stdin is /dev/null.)

--auth    moto checks SigV4 signatures and IAM policies only in its access-control mode
          (settings.INITIAL_NO_AUTH_ACTION_COUNT, normally set from the env var of that name).
          We create an IAM user + access key allowed s3:* while checks are off, then switch the
          checks on (count 0) and print that key. Without --auth any credentials are accepted.
--bucket  buckets to create before the JSON line is printed.
--log     append one JSON line per HTTP request (made after start-up) to FILE, flushed:
          {"method", "path", "query": {name: value}, "status", "content_length"}
          e.g. UploadPart = PUT with query partNumber & uploadId; CreateMultipartUpload = POST ?uploads.
"""
import argparse
import json
import logging
import os
import threading
from urllib.parse import parse_qs

import lifetime

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--auth", action="store_true", help="make moto verify credentials")
ap.add_argument("--bucket", action="append", default=[], help="bucket to create (repeatable)")
ap.add_argument("--log", help="append a JSON line per request to this file")
ap.add_argument("--ignore-stdin", action="store_true", help="don't shut down on stdin EOF")
args = ap.parse_args()

os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")  # our own boto3 calls must not go via a proxy
os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")

import boto3  # noqa: E402  (imported after argument parsing so --help is fast)
from moto import settings  # noqa: E402
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

REGION = "us-east-1"
logging.getLogger("werkzeug").setLevel(logging.ERROR)  # keep werkzeug's access log off stderr

moto_app = DomainDispatcherApplication(create_backend_app)
log_file = open(args.log, "a", encoding="utf-8") if args.log else None
log_lock = threading.Lock()
logging_on = threading.Event()  # set after start-up, so set-up requests don't pollute counts


def app(environ, start_response):
    """WSGI wrapper around moto: records method, path, query and status of each request."""
    if log_file is None or not logging_on.is_set():
        return moto_app(environ, start_response)
    status = []

    def recording_start_response(st, headers, exc_info=None):
        status.append(int(st.split()[0]))
        return start_response(st, headers, exc_info)

    try:
        result = moto_app(environ, recording_start_response)
    except Exception:
        status[:] = [500]  # moto bug (e.g. KeyError); werkzeug answers 500 with an HTML page
        raise
    finally:
        log_request(environ, status)
    return result


def log_request(environ, status):
    query = {k: v[0] if len(v) == 1 else v
             for k, v in parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True).items()}
    entry = {"method": environ["REQUEST_METHOD"],
             "path": environ["PATH_INFO"].encode("latin-1").decode("utf-8", "replace"),
             "query": query,
             "status": status[0] if status else None,
             "content_length": int(environ.get("CONTENT_LENGTH") or 0)}
    with log_lock:
        log_file.write(json.dumps(entry) + "\n")
        log_file.flush()


# threaded=True: a thread per connection, so requests run concurrently. (werkzeug answers
# HTTP/1.1 but sends `Connection: close` on every response: no keep-alive against moto.)
server = make_server("127.0.0.1", 0, app, threaded=True)
port = server.server_port
endpoint = f"http://127.0.0.1:{port}"
threading.Thread(target=server.serve_forever, daemon=True).start()


def client(service, key, secret):
    return boto3.client(service, endpoint_url=endpoint, region_name=REGION,
                        aws_access_key_id=key, aws_secret_access_key=secret)


access_key, secret_key = "test", "test"  # dummies: accepted by moto when checks are off
if args.auth:
    iam = client("iam", access_key, secret_key)
    iam.create_user(UserName="uploader")
    policy = {"Version": "2012-10-17",
              "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
    arn = iam.create_policy(PolicyName="s3-all", PolicyDocument=json.dumps(policy))["Policy"]["Arn"]
    iam.attach_user_policy(UserName="uploader", PolicyArn=arn)
    key = iam.create_access_key(UserName="uploader")["AccessKey"]
    access_key, secret_key = key["AccessKeyId"], key["SecretAccessKey"]
    settings.INITIAL_NO_AUTH_ACTION_COUNT = 0  # from now on every request is authenticated

s3 = client("s3", access_key, secret_key)  # with --auth this also proves the new key works
for name in args.bucket:
    s3.create_bucket(Bucket=name)
s3.list_buckets()  # the server answers

logging_on.set()
print(json.dumps({"port": port, "endpoint": endpoint, "access_key": access_key,
                  "secret_key": secret_key, "region": REGION}), flush=True)

lifetime.wait_until_told_to_stop(watch_stdin=not args.ignore_stdin)
server.shutdown()
