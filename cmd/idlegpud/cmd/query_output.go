package cmd

import (
	"strings"

	gogoproto "github.com/cosmos/gogoproto/proto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"cosmossdk.io/api/amino"
)

// chainPackage prefixes this chain's protobuf packages (idlegpu.offer.v1, …).
const chainPackage = "idlegpu."

// zeroFieldFiles is the protobuf registry autocli builds commands from,
// with every scalar and enum field of this chain's messages marked
// amino.dont_omitempty. Autocli prints responses with the amino JSON
// encoder, which leaves out a zero value unless its field says otherwise:
// `q offer offer` of a jailed provider's offer printed no
// provider_can_take_work, and so read as an offer that could be matched.
// Message fields keep the default (the encoder cannot print an unset one),
// and so do lists (an empty one would print as null). The options change
// what is printed, never a message's bytes.
func zeroFieldFiles() (*protoregistry.Files, error) {
	fds, err := gogoproto.MergedGlobalFileDescriptors()
	if err != nil {
		return nil, err
	}
	for _, fd := range fds.File {
		if !strings.HasPrefix(fd.GetPackage(), chainPackage) {
			continue
		}
		for _, m := range fd.MessageType {
			emitZeroFields(m)
		}
	}
	return protodesc.NewFiles(fds)
}

// emitZeroFields marks m's fields, and its nested messages', to print when zero.
func emitZeroFields(m *descriptorpb.DescriptorProto) {
	for _, n := range m.NestedType {
		if !n.GetOptions().GetMapEntry() {
			emitZeroFields(n)
		}
	}
	for _, f := range m.Field {
		if f.OneofIndex != nil || f.GetType() == descriptorpb.FieldDescriptorProto_TYPE_MESSAGE ||
			f.GetLabel() == descriptorpb.FieldDescriptorProto_LABEL_REPEATED {
			continue
		}
		if f.Options == nil {
			f.Options = &descriptorpb.FieldOptions{}
		}
		proto.SetExtension(f.Options, amino.E_DontOmitempty, true)
	}
}
