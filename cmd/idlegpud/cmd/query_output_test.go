package cmd

import (
	"strings"
	"testing"

	gogoproto "github.com/cosmos/gogoproto/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/cosmos/cosmos-sdk/x/tx/signing/aminojson"
)

// TestZeroFieldsPrint: a response as autocli prints it (the amino JSON
// encoder over a message built from the registry) shows a false
// provider_can_take_work and a zero count with zeroFieldFiles; over the
// registry as generated it showed neither, so the offer read as OPEN.
func TestZeroFieldsPrint(t *testing.T) {
	print := func(files interface {
		FindDescriptorByName(protoreflect.FullName) (protoreflect.Descriptor, error)
	}, name, field string) string {
		t.Helper()
		d, err := files.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			t.Fatal(err)
		}
		msg := dynamicpb.NewMessage(d.(protoreflect.MessageDescriptor))
		setMessages(msg) // as a response decodes them (gogoproto's non-nullable fields)
		fd := msg.Descriptor().Fields().ByName(protoreflect.Name(field))
		msg.Set(fd, msg.NewField(fd)) // the zero value, as a response decodes it
		bz, err := aminojson.NewEncoder(aminojson.EncoderOptions{EnumAsString: true, DoNotSortFields: true,
			TypeResolver: protoregistry.GlobalTypes}).Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		return string(bz)
	}
	zero, err := zeroFieldFiles()
	if err != nil {
		t.Fatal(err)
	}
	generated, err := gogoproto.MergedRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, field, want string }{
		{"idlegpu.offer.v1.QueryOfferResponse", "provider_can_take_work", `"provider_can_take_work":false}`},
		{"idlegpu.provider.v1.Provider", "gpu_count", `"gpu_count":0`},
		{"idlegpu.bridge.v1.Progress", "withdrawn_since_root", `"withdrawn_since_root":false`},
	} {
		if got := print(zero, tc.name, tc.field); !strings.Contains(got, tc.want) {
			t.Errorf("%s prints %s, want %s in it", tc.name, got, tc.want)
		}
		if got := print(generated, tc.name, tc.field); strings.Contains(got, `"`+tc.field+`"`) {
			t.Errorf("%s already prints %s without zeroFieldFiles: the test shows nothing", tc.name, got)
		}
	}
}

// setMessages sets msg's singular message fields, and theirs, to empty messages.
func setMessages(msg protoreflect.Message) {
	fields := msg.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() == protoreflect.MessageKind && !fd.IsList() && !fd.IsMap() && fd.ContainingOneof() == nil {
			v := msg.NewField(fd)
			setMessages(v.Message())
			msg.Set(fd, v)
		}
	}
}
