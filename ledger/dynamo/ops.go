package dynamo

import "context"

// ReturnTotal asks an operation for the capacity it consumed
// (ReturnConsumedCapacity TOTAL).
const ReturnTotal = "TOTAL"

// ConsumedCapacity is the capacity an operation consumed.
type ConsumedCapacity struct {
	TableName     string   `json:"TableName,omitempty"`
	CapacityUnits *float64 `json:"CapacityUnits,omitempty"`
}

// GetItemInput is GetItem's request: the item of Key in TableName.
type GetItemInput struct {
	TableName              string `json:"TableName"`
	Key                    Item   `json:"Key"`
	ConsistentRead         bool   `json:"ConsistentRead,omitempty"`
	ReturnConsumedCapacity string `json:"ReturnConsumedCapacity,omitempty"`
}

// GetItemOutput is GetItem's answer; Item is empty when there is none.
type GetItemOutput struct {
	Item             Item              `json:"Item"`
	ConsumedCapacity *ConsumedCapacity `json:"ConsumedCapacity"`
}

// PutItemInput is PutItem's request: Item into TableName, when
// ConditionExpression (if any) holds.
type PutItemInput struct {
	TableName                 string            `json:"TableName"`
	Item                      Item              `json:"Item"`
	ConditionExpression       string            `json:"ConditionExpression,omitempty"`
	ExpressionAttributeNames  map[string]string `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues Item              `json:"ExpressionAttributeValues,omitempty"`
	ReturnConsumedCapacity    string            `json:"ReturnConsumedCapacity,omitempty"`
}

// PutItemOutput is PutItem's answer.
type PutItemOutput struct {
	ConsumedCapacity *ConsumedCapacity `json:"ConsumedCapacity"`
}

// QueryInput is Query's request: one page of the items of a partition of
// TableName, or of its index IndexName, from ExclusiveStartKey on. Limit 0
// means no limit beyond DynamoDB's 1 MB page.
type QueryInput struct {
	TableName                 string            `json:"TableName"`
	IndexName                 string            `json:"IndexName,omitempty"`
	KeyConditionExpression    string            `json:"KeyConditionExpression"`
	ExpressionAttributeNames  map[string]string `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues Item              `json:"ExpressionAttributeValues,omitempty"`
	ExclusiveStartKey         Item              `json:"ExclusiveStartKey,omitempty"`
	Limit                     int32             `json:"Limit,omitempty"`
	ReturnConsumedCapacity    string            `json:"ReturnConsumedCapacity,omitempty"`
}

// QueryOutput is one page of Query's answer; LastEvaluatedKey is empty on
// the last page.
type QueryOutput struct {
	Items            []Item            `json:"Items"`
	Count            int32             `json:"Count"`
	LastEvaluatedKey Item              `json:"LastEvaluatedKey"`
	ConsumedCapacity *ConsumedCapacity `json:"ConsumedCapacity"`
}

// GetItem reads one item.
func (c *Client) GetItem(ctx context.Context, in *GetItemInput) (*GetItemOutput, error) {
	var out GetItemOutput
	return &out, c.call(ctx, "GetItem", in, &out)
}

// PutItem writes one item. A condition that does not hold is an *Error
// whose Code is ConditionalCheckFailed.
func (c *Client) PutItem(ctx context.Context, in *PutItemInput) (*PutItemOutput, error) {
	var out PutItemOutput
	return &out, c.call(ctx, "PutItem", in, &out)
}

// Query reads one page of a partition.
func (c *Client) Query(ctx context.Context, in *QueryInput) (*QueryOutput, error) {
	var out QueryOutput
	return &out, c.call(ctx, "Query", in, &out)
}
