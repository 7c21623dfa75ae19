package dynamo_test

import (
	"context"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/trainq/trainq/ledger/dynamo"
)

// BenchmarkGetItem is one GetItem of a ledger-sized item (a job with two
// attempts) against a loopback server with a canned answer, by this
// client and, as the reference in the same run, by the SDK's: the
// client's own cost a call (encoding, signing, decoding, retries'
// bookkeeping), without DynamoDB's.
//
//	go test ./ledger/dynamo -run XXX -bench GetItem -benchmem
func BenchmarkGetItem(b *testing.B) {
	answer := []byte(`{"ConsumedCapacity":{"CapacityUnits":0.5,"TableName":"ledger"},"Item":{"jobId":{"S":"4c7599ae-0a82-49aa-ba5a-4727fcce14a8"},` +
		`"rev":{"N":"3"},"expiresAt":{"N":"1799999999"},"endDay":{"S":"2026-12-01"},"team":{"S":"search-ranking"},"class":{"S":"sweep"},` +
		`"prio":{"N":"100"},"itype":{"S":"ml.p4d.24xlarge"},"inst":{"N":"2"},"created":{"N":"1764590000000"},"status":{"S":"SUCCEEDED"},` +
		`"sched":{"L":[{"N":"1764590060000"},{"N":"1764593660000"}]},"att":{"L":[{"M":{"s":{"N":"1764590100000"},"e":{"N":"1764591100000"},"p":{"BOOL":true},` +
		`"tj":{"S":"AWSBatchj1a"}}},{"M":{"s":{"N":"1764593700000"},"e":{"N":"1764600000000"},"tj":{"S":"AWSBatchj1b"}}}]}}}`)
	sum := strconv.FormatUint(uint64(crc32.ChecksumIEEE(answer)), 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amz-Crc32", sum)
		w.Write(answer)
	}))
	defer srv.Close()
	cfg := aws.Config{Region: "us-east-1", Credentials: testCreds}
	ctx := context.Background()
	b.Run("dynamo", func(b *testing.B) {
		c, err := dynamo.New(cfg, func(o *dynamo.Options) { o.Endpoint = srv.URL })
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			out, err := c.GetItem(ctx, &dynamo.GetItemInput{TableName: "ledger", Key: dynamo.Item{"jobId": dynamo.S("4c7599ae-0a82-49aa-ba5a-4727fcce14a8")},
				ConsistentRead: true, ReturnConsumedCapacity: dynamo.ReturnTotal})
			if err != nil || len(out.Item) != 13 {
				b.Fatalf("%v items, %v", len(out.Item), err)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		c := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
		for b.Loop() {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("ledger"),
				Key:            map[string]types.AttributeValue{"jobId": &types.AttributeValueMemberS{Value: "4c7599ae-0a82-49aa-ba5a-4727fcce14a8"}},
				ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil || len(out.Item) != 13 {
				b.Fatalf("%v items, %v", len(out.Item), err)
			}
		}
	})
}
