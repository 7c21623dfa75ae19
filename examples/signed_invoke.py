#!/usr/bin/env python3
"""Call trainq's submission function from a pipeline, in Python.

The function acts only on requests that carry the caller's signed identity
(docs/submission.md, "Calling the function"): the request as JSON text, and
the caller's SigV4 signature over an STS GetCallerIdentity request that names
the function and the SHA-256 of that text. The function sends that request to
STS itself and STS answers with the caller's role; the platform file's
submission.submitters (or the stack's GrantSubmit) say what the role may do.

    python3 signed_invoke.py trainq-submit request.json
    python3 signed_invoke.py trainq-submit:research-search-ranking request.json

Credentials, region and endpoints come from botocore's standard configuration
(AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL_LAMBDA, AWS_ENDPOINT_URL_STS, ...).
It prints the function's answer and exits 1 on a function error.
"""

import hashlib
import json
import os
import sys

import boto3
import botocore.session
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest

# What the function rebuilds and sends to STS (package contract, identity.go).
IDENTITY_BODY = "Action=GetCallerIdentity&Version=2011-06-15"
CONTENT_TYPE = "application/x-www-form-urlencoded; charset=utf-8"


def sts_endpoint(region):
    """The STS endpoint the function verifies against: AWS_ENDPOINT_URL_STS,
    else the function's region's own."""
    override = os.environ.get("AWS_ENDPOINT_URL_STS")
    if override:
        return override.rstrip("/")
    suffix = "amazonaws.com.cn" if region.startswith("cn-") else "amazonaws.com"
    return "https://sts.%s.%s" % (region, suffix)


def region_of(session):
    """The region: botocore's configuration, else AWS_REGION."""
    return session.get_config_variable("region") or os.environ.get("AWS_REGION")


def signed_payload(request, function, session=None):
    """The payload to invoke `function` (a name, name:qualifier or ARN) with:
    `request` (a dict: docs/submission.md) beside the caller's proof."""
    session = session or botocore.session.get_session()
    region = region_of(session)
    text = json.dumps(request, separators=(",", ":"))
    name = function.split("function:")[-1].split(":")[0]
    aws_request = AWSRequest(
        method="POST",
        url=sts_endpoint(region) + "/",
        data=IDENTITY_BODY,
        headers={
            "Content-Type": CONTENT_TYPE,
            "X-Trainq-Function": name,
            "X-Trainq-Request-Sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        },
    )
    credentials = session.get_credentials().get_frozen_credentials()
    SigV4Auth(credentials, "sts", region).add_auth(aws_request)
    identity = {
        "authorization": aws_request.headers["Authorization"],
        "amzDate": aws_request.headers["X-Amz-Date"],
    }
    if credentials.token:
        identity["securityToken"] = aws_request.headers["X-Amz-Security-Token"]
    return json.dumps({"request": text, "identity": identity})


def invoke(request, function):
    """Invoke the function with `request`; return (answer, error type or None)."""
    name, _, qualifier = function.partition(":") if not function.startswith("arn:") else (function, "", "")
    kwargs = {"FunctionName": name, "Payload": signed_payload(request, function)}
    if qualifier:
        kwargs["Qualifier"] = qualifier
    region = region_of(botocore.session.get_session())
    out = boto3.client("lambda", region_name=region).invoke(**kwargs)
    answer = json.loads(out["Payload"].read())
    # A function error's answer is {"errorType", "errorMessage"} (Lambda also
    # sets FunctionError; not every emulator does).
    error = out.get("FunctionError") or (isinstance(answer, dict) and answer.get("errorType"))
    return answer, (isinstance(answer, dict) and answer.get("errorType")) or error or None


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[2]) as f:
        request = json.load(f)
    answer, error = invoke(request, argv[1])
    print(json.dumps(answer, indent=2))
    return 1 if error else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
