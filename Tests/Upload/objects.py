#!/usr/bin/env python3
"""What a bucket holds, read back with boto3 for the upload tests (an independent reader).

Usage: python3 objects.py ENDPOINT BUCKET [--create]
Prints one JSON object: {"objects": {key: sha256 hex}, "unfinished": [keys of multipart
uploads not completed or aborted]}. Any credentials do for moto without access control.
With --create it creates the bucket first (a bucket that did not exist when the queue began).
"""
import hashlib
import json
import os
import sys

import boto3

endpoint, bucket = sys.argv[1], sys.argv[2]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "test"),
                  aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "test"))
if "--create" in sys.argv[3:]:
    s3.create_bucket(Bucket=bucket)
objects = {}
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
    for item in page.get("Contents", []):
        body = s3.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
        objects[item["Key"]] = hashlib.sha256(body).hexdigest()
unfinished = [u["Key"] for u in s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])]
print(json.dumps({"objects": objects, "unfinished": unfinished}))
